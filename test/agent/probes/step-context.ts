/** A StepContext for probe tests: no API (the probes never call it), a recording log, a command runner. */
import type { StepContext, StepRequest } from '../../../agent/src/contracts.js';
import type { CommandRunner } from '../../../agent/src/exec.js';
import type { StepType } from '../../../contracts/step-replies.js';
import { recordingLog, type RecordingLog } from './fixtures.js';

export function stepContext(exec: CommandRunner): StepContext & { log: RecordingLog } {
  return {
    hostId: '4f0e3a1c-2b5d-4e6f-8a9b-0c1d2e3f4a5b',
    infraEnvId: '11111111-1111-1111-1111-111111111111',
    api: { call: () => Promise.reject(new Error('probe steps do not call the API')) },
    exec,
    log: recordingLog(),
    signal: new AbortController().signal,
  };
}

export const request = (stepType: StepType, ...args: unknown[]): StepRequest => ({
  step_type: stepType,
  step_id: `${stepType}-1`,
  args: args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))),
});
