// Imported first in each function instance of a rule-recording runtime: sends imports of the two
// state machines to wrappers that report every rule answered (rule-recorder.ts, RULES_CHANNEL).
import { register } from 'node:module';

register('./rule-recorder-loader.mjs', import.meta.url);
