/** The host state machine as a rule-recording instance sees it: the real one, reporting each rule answered. */
import * as actual from '../../../lambdas/domain/host/host-state-machine.js';
import { recordingHostMachine, reportRule } from '../rule-recorder.js';

export * from '../../../lambdas/domain/host/host-state-machine.js';
export const transitionHost = recordingHostMachine(actual, { push: reportRule }).transitionHost;
