/**
 * container-image-availability: can this host pull the release images, and how fast. Images are
 * pulled one after another within the request's overall timeout.
 */
import { EXIT_IMAGE_PULL_FAILED, type StepContext, type StepRequest, type StepResult } from '../contracts.js';
import { guarded, run, SingleFlight, stepRequest } from './support.js';
import { encodeStepOutput } from '../../../contracts/step-replies.js';

interface ImageResult {
  name: string;
  result: 'success' | 'failure';
  size_bytes?: number;
  time?: number;
  download_rate?: number;
}

const pulls = new SingleFlight();

export async function containerImageAvailability(request: StepRequest, context: StepContext): Promise<StepResult> {
  return guarded(request, context, async () => {
    const { images, timeout: timeoutSeconds } = stepRequest('container-image-availability', request);
    return pulls.run('container-image-availability', async () => {
      const deadline = Date.now() + timeoutSeconds * 1000;
      const results: ImageResult[] = [];
      const errors: string[] = [];
      for (const image of images) {
        const remainingMs = deadline - Date.now();
        if (remainingMs <= 0) {
          results.push({ name: image, result: 'failure' });
          errors.push(`${image}: not tried, the ${timeoutSeconds} s timeout had passed`);
          continue;
        }
        const local = await run(context, 'podman', ['images', '--quiet', image], { timeoutMs: 30_000 });
        if (local.missing) {
          results.push({ name: image, result: 'failure' });
          errors.push(`${image}: podman is not installed on this host`);
          continue;
        }
        const wasLocal = local.exitCode === 0 && local.stdout.trim() !== '';
        const started = process.hrtime.bigint();
        const pull = await run(context, 'podman', ['pull', image], { timeoutMs: remainingMs });
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        if (pull.exitCode !== 0) {
          results.push({ name: image, result: 'failure' });
          errors.push(`${image}: ${pull.timedOut ? 'pull timed out' : pull.stderr.trim().split('\n').pop() || `podman pull exited ${pull.exitCode}`}`);
          continue;
        }
        if (wasLocal) {
          results.push({ name: image, result: 'success', time: seconds });
          continue;
        }
        const inspect = await run(context, 'podman', ['image', 'inspect', '--format={{.Size}}', image], { timeoutMs: 30_000 });
        const size = Number(inspect.stdout.trim());
        const sized = inspect.exitCode === 0 && Number.isFinite(size) && size > 0;
        results.push({
          name: image,
          result: 'success',
          time: seconds,
          ...(sized ? { size_bytes: size, download_rate: seconds > 0 ? size / seconds / 1e6 : 0 } : {}),
        });
      }
      const output = encodeStepOutput('container-image-availability', { images: results });
      if (errors.length === 0) return { exit_code: 0, output };
      return { exit_code: EXIT_IMAGE_PULL_FAILED, output, error: errors.join('; ') };
    });
  });
}
