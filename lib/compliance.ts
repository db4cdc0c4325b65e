import { Validations, type App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';

/**
 * cdk-nag's AwsSolutions pack as a synth-time policy check: an unacknowledged finding fails
 * `cdk synth` and `cdk deploy`. Each acknowledgement (Validations.of(x).acknowledge) carries its
 * reason next to the resource it concerns and is copied into the template's Metadata (cdk_nag),
 * where the tests read them.
 */
export function addComplianceChecks(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true, writeSuppressionsToCloudFormation: true }));
}
