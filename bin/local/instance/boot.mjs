// A function instance's first module: TypeScript sources load through tsx in this thread too
// (a worker does not inherit the parent's --import hooks), then the instance itself starts.
import { register } from 'tsx/esm/api';

register();
await import('./instance.ts');
