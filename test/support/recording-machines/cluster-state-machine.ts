/** The cluster state machine as a rule-recording instance sees it: the real one, reporting each rule answered. */
import * as actual from '../../../lambdas/domain/cluster/cluster-state-machine.js';
import { recordingClusterMachine, reportRule } from '../rule-recorder.js';

export * from '../../../lambdas/domain/cluster/cluster-state-machine.js';
export const transitionCluster = recordingClusterMachine(actual, { push: reportRule }).transitionCluster;
