/** The service's S3 buckets (files, images, logs, and the access logs of them all) and the grants on their objects. */
import { Duration, type RemovalPolicy, type Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { ORGANISATION_OBJECTS } from './installer-task.js';
import { nagArn } from './nag-ids.js';
import type { StageConfig } from './stage-config.js';

/** Organisation-independent objects of the images bucket: base ISOs and boot artifacts (bin/import-base-iso.ts writes them). */
export const BASE_IMAGE_OBJECTS = 'base-images/*';

export interface ServiceBuckets {
  files: s3.Bucket;
  images: s3.Bucket;
  logs: s3.Bucket;
  access: s3.Bucket;
}

/**
 * The buckets, in the stack's own scope (their logical ids, and so the deployed buckets, stay what
 * they were when the stack built them itself).
 */
export function addServiceBuckets(stack: Stack, config: StageConfig, removalPolicy: RemovalPolicy): ServiceBuckets {
  // Server access logs of the other buckets and CloudFront's logs. CloudFront standard logging
  // writes with ACLs, hence object-writer ownership on this bucket only.
  const access = new s3.Bucket(stack, 'AccessLogsBucket', {
    encryption: s3.BucketEncryption.S3_MANAGED,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    objectOwnership: s3.ObjectOwnership.OBJECT_WRITER,
    lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(config.logRetentionDays) }],
    removalPolicy,
  });
  Validations.of(access).acknowledge({
    id: 'AwsSolutions-S1',
    reason: 'This is the access log bucket itself; logging its own access would log every log delivery.',
  });
  const bucket = (bucketId: string, prefix: string, lifecycleRules: s3.LifecycleRule[]) =>
    new s3.Bucket(stack, bucketId, {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      serverAccessLogsBucket: access,
      serverAccessLogsPrefix: `s3/${prefix}/`,
      lifecycleRules: [{ id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) }, ...lifecycleRules],
      // Object URLs are pre-signed for downloads; browsers on the console domain fetch them.
      cors: [{ allowedMethods: [s3.HttpMethods.GET, s3.HttpMethods.HEAD], allowedOrigins: ['*'], maxAge: 3600 }],
      removalPolicy,
    });
  return {
    files: bucket('FilesBucket', 'files', []),
    images: bucket('ImagesBucket', 'images', [
      // Discovery images are rebuilt on demand; what is not downloaded for a while is stale.
      { id: 'expire-stale-images', prefix: 'orgs/', expiration: Duration.days(config.imageRetentionDays) },
    ]),
    logs: bucket('LogsBucket', 'logs', [{ id: 'expire-cluster-logs', prefix: 'orgs/', expiration: Duration.days(config.clusterLogRetentionDays) }]),
    access,
  };
}

/**
 * Object access under orgs/ (every key the service writes starts there: lambdas/domain/core/object-keys.ts),
 * listing only below it. Multipart uploads (UploadPartCopy in compose) are PutObject plus Abort.
 */
export function grantOrganisationObjects(role: iam.Role, bucket: s3.IBucket): void {
  grantObjectsBelow(
    role,
    bucket,
    ORGANISATION_OBJECTS,
    ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
    'Object keys name the organisation and cluster or infra-env, known only per request; the grant is limited to the organisation objects (orgs/*) of this bucket.',
  );
}

/** Base images are read (and copied from, server-side) by every image composition; only operators write them. */
export function grantBaseImageReads(role: iam.Role, bucket: s3.IBucket): void {
  grantObjectsBelow(
    role,
    bucket,
    BASE_IMAGE_OBJECTS,
    ['s3:GetObject'],
    'Read-only: base ISOs and boot artifacts per OpenShift version and architecture, chosen per request; every image composition reads and byte-range-copies from them.',
  );
}

/**
 * `objectActions` on the objects the key pattern matches, and listing limited to it. The pattern is a
 * wildcard resource, which cdk-nag flags; `reason` is why the role cannot be given the keys one by one.
 */
function grantObjectsBelow(role: iam.Role, bucket: s3.IBucket, keyPattern: string, objectActions: string[], reason: string): void {
  role.addToPolicy(new iam.PolicyStatement({ actions: objectActions, resources: [bucket.arnForObjects(keyPattern)] }));
  role.addToPolicy(
    new iam.PolicyStatement({
      actions: ['s3:ListBucket'],
      resources: [bucket.bucketArn],
      conditions: { StringLike: { 's3:prefix': [keyPattern] } },
    }),
  );
  Validations.of(role).acknowledge({ id: `AwsSolutions-IAM5[Resource::${nagArn(bucket)}/${keyPattern}]`, reason });
}
