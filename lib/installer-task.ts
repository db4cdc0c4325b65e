import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Duration, type RemovalPolicy, Stack, Stage, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import { Construct } from 'constructs';
import { buildSync, type BuildOptions } from 'esbuild';
import { esbuildOptions } from './esbuild-options.js';
import { nagArn } from './nag-ids.js';
import type { ImportedVpc } from './stage-config.js';

/**
 * The installer image's bundle: the task without the SIMULATED installer, which it imports only
 * when ALLOW_SIMULATED_INSTALLER=true (the embedded runtime's tasks, built by bin/local/containers.ts,
 * keep it). In the image that import would fail loudly rather than simulate.
 */
export function installerImageBundleOptions(projectRoot: string, entry: string, outfile: string): BuildOptions {
  return { ...esbuildOptions(projectRoot, entry, outfile, 'inline'), external: ['./simulated-installer.js'] };
}

/** The container name the state machine's ContainerOverrides address (statemachines/install-cluster.asl.json). */
export const INSTALLER_CONTAINER_NAME = 'installer';
/** Every object the installer reads or writes is an organisation's: lambdas/domain/core/object-keys.ts. */
export const ORGANISATION_OBJECTS = 'orgs/*';

const CONTAINER_SOURCES = join('lib', 'containers', 'installer');

/**
 * Network for the installer tasks. The created VPC has public subnets only and no NAT gateway: a
 * task runs a few minutes per installation and needs HTTPS out (the OpenShift client mirror, ECR,
 * CloudWatch Logs), so it gets a public IP for its run (RunTask AssignPublicIp) instead of the VPC
 * paying a NAT gateway every hour ($32.85 a month in us-east-1, idle or not). Its security group
 * admits nothing in and lets only HTTPS out; S3 goes through the free gateway endpoint. An imported
 * VPC (context `vpc`) gives either private subnets behind its own NAT or public subnets.
 */
export class InstallerNetwork extends Construct {
  readonly vpc: ec2.IVpc;
  readonly subnets: ec2.ISubnet[];
  readonly securityGroup: ec2.SecurityGroup;
  /** Whether tasks get a public IP: they run in public subnets. */
  readonly assignPublicIp: boolean;

  constructor(scope: Construct, id: string, props: { imported?: ImportedVpc; removalPolicy: RemovalPolicy; logRetention: logs.RetentionDays }) {
    super(scope, id);
    if (props.imported) {
      const { vpcId, availabilityZones, privateSubnetIds, publicSubnetIds } = props.imported;
      this.vpc = ec2.Vpc.fromVpcAttributes(this, 'Vpc', {
        vpcId,
        availabilityZones,
        ...(privateSubnetIds ? { privateSubnetIds } : { publicSubnetIds }),
      });
      this.assignPublicIp = !privateSubnetIds;
      this.subnets = this.assignPublicIp ? this.vpc.publicSubnets : this.vpc.privateSubnets;
    } else {
      const flowLogs = new logs.LogGroup(this, 'FlowLogs', { retention: props.logRetention, removalPolicy: props.removalPolicy });
      const vpc = new ec2.Vpc(this, 'Vpc', {
        ipAddresses: ec2.IpAddresses.cidr('10.80.0.0/20'),
        maxAzs: 2,
        natGateways: 0,
        subnetConfiguration: [
          // Nothing else runs here; the task asks for its own public IP, so instances never get one by default.
          { name: 'installer', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24, mapPublicIpOnLaunch: false },
        ],
        // S3 traffic (install-config, manifests, ignition) stays on AWS's network: free and private.
        gatewayEndpoints: { S3: { service: ec2.GatewayVpcEndpointAwsService.S3 } },
        flowLogs: {
          all: { destination: ec2.FlowLogDestination.toCloudWatchLogs(flowLogs), trafficType: ec2.FlowLogTrafficType.REJECT },
        },
        restrictDefaultSecurityGroup: false,
      });
      this.vpc = vpc;
      this.assignPublicIp = true;
      this.subnets = vpc.selectSubnets({ subnetType: ec2.SubnetType.PUBLIC }).subnets;
    }
    this.securityGroup = new ec2.SecurityGroup(this, 'InstallerTasks', {
      vpc: this.vpc,
      description: 'openshift-install tasks: no inbound; HTTPS out to the client mirror, ECR, S3 and CloudWatch Logs',
      allowAllOutbound: false,
    });
    // The mirror and the AWS endpoints are only known by name (their addresses move): any IPv4 address, HTTPS only.
    this.securityGroup.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), 'HTTPS: client mirror, ECR, S3, CloudWatch Logs');
  }
}

export interface InstallerTaskProps {
  /** Entry of lambdas/functions.json `containers`, relative to the project root. */
  entry: string;
  description?: string;
  projectRoot: string;
  cluster: ecs.ICluster;
  environment: Record<string, string>;
  filesBucket: s3.IBucket;
  logRetention: logs.RetentionDays;
  removalPolicy: RemovalPolicy;
  /** registry/repository:tag of a pre-built image; without it the image is built from lib/containers/installer. */
  image?: string;
}

/**
 * One Fargate task definition running a container entry of the catalogue. Its role may read and
 * write the organisations' objects of the files bucket and nothing else.
 */
export class InstallerTask extends Construct {
  readonly taskDefinition: ecs.FargateTaskDefinition;
  readonly container: ecs.ContainerDefinition;

  constructor(scope: Construct, id: string, props: InstallerTaskProps) {
    super(scope, id);
    const logGroup = new logs.LogGroup(this, 'Logs', { retention: props.logRetention, removalPolicy: props.removalPolicy });

    this.taskDefinition = new ecs.FargateTaskDefinition(this, 'TaskDefinition', {
      // openshift-install create manifests/ignition-configs peaks near 1.5 GB; the download needs ~1 GB of disk.
      cpu: 1024,
      memoryLimitMiB: 4096,
      runtimePlatform: { cpuArchitecture: ecs.CpuArchitecture.X86_64, operatingSystemFamily: ecs.OperatingSystemFamily.LINUX },
    });
    const taskRole = this.taskDefinition.taskRole;
    taskRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['s3:GetObject', 's3:PutObject'],
        resources: [props.filesBucket.arnForObjects(ORGANISATION_OBJECTS)],
      }),
    );
    taskRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [props.filesBucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [ORGANISATION_OBJECTS] } },
      }),
    );

    this.container = this.taskDefinition.addContainer(INSTALLER_CONTAINER_NAME, {
      containerName: INSTALLER_CONTAINER_NAME,
      image: props.image ? ecs.ContainerImage.fromRegistry(props.image) : this.imageFromSources(props),
      essential: true,
      environment: props.environment,
      logging: ecs.LogDrivers.awsLogs({ streamPrefix: 'installer', logGroup }),
      stopTimeout: Duration.seconds(30),
    });

    Validations.of(this.taskDefinition).acknowledge({
      id: 'AwsSolutions-ECS2',
      reason:
        'The environment holds resource names only (table, buckets, state machine ARNs, hosted zone ids), the same the Lambda functions get; no secret is passed this way.',
    });
    Validations.of(taskRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagArn(props.filesBucket)}/${ORGANISATION_OBJECTS}]`,
      reason:
        'The installer reads install-config.yaml and manifests and writes outputs of the cluster it is started for; cluster ids are only known at run time, so the grant covers the organisation objects (orgs/*) of the files bucket.',
    });
    Validations.of(this.taskDefinition.obtainExecutionRole()).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'ecr:GetAuthorizationToken, which ECS needs to pull the image, has no resource-level form; the pull itself is limited to the image repository.',
    });
  }

  /**
   * The image is built by `cdk deploy` from a context directory staged here: the Containerfile, the
   * entrypoint script and the entry bundled now by esbuild (so the image needs no npm install and
   * runs exactly the code of this checkout). Synth stages the directory; Docker runs only at deploy.
   */
  private imageFromSources(props: InstallerTaskProps): ecs.ContainerImage {
    const context = join(Stage.of(this)!.outdir, `.installer-context-${this.node.addr}`);
    mkdirSync(context, { recursive: true });
    for (const file of ['Containerfile', 'run-installer.sh']) copyFileSync(join(props.projectRoot, CONTAINER_SOURCES, file), join(context, file));
    const bundle = join(context, 'installation-files.mjs');
    if (Stack.of(this).bundlingRequired) {
      buildSync(installerImageBundleOptions(props.projectRoot, props.entry, bundle));
    } else {
      // Stacks not being deployed are not bundled (`cdk deploy OtherStack`, tests that skip bundling).
      writeFileSync(bundle, "throw new Error('this image was staged without bundling: deploy the stack itself to build it');\n");
    }
    return ecs.ContainerImage.fromAsset(context, { file: 'Containerfile', platform: Platform.LINUX_AMD64 });
  }
}
