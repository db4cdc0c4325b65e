import { describe, expect, it } from 'vitest';
import { liveChangeOf, webhookClassesOf } from '../../lambdas/domain/events/live-changes.js';
import { reaches, subscriptionOf } from '../../lambdas/domain/events/live-subscriptions.js';
import { isNonPublicAddress, nextWebhookAttempt, verifyWebhookSignature, webhookSignature, webhookUrlProblem } from '../../lambdas/domain/events/webhooks.js';
import { createHmac } from 'node:crypto';

const cluster = (status: string, version: number, validations?: Record<string, { id: string; status: string }[]>) => ({
  orgId: 'o',
  clusterId: 'c',
  status,
  version,
  updatedAt: `t${version}`,
  attributes: { name: 'x', ...(validations ? { validations_info: JSON.stringify(validations) } : {}) },
});

describe('live changes', () => {
  it('names what changed, and the webhook classes a change raises', () => {
    const change = liveChangeOf('cluster', cluster('ready', 2), cluster('installed', 3))!;
    expect(change).toMatchObject({ kind: 'cluster', id: 'c', version: 3, changed: ['status'], status: 'installed', previousStatus: 'ready' });
    expect(webhookClassesOf(change)).toEqual(['cluster-status', 'installed']);
    // Only bookkeeping changed: nothing to tell.
    expect(liveChangeOf('cluster', cluster('ready', 2), { ...cluster('ready', 3) })).toBeUndefined();
    const failing = liveChangeOf(
      'cluster',
      cluster('ready', 2, { network: [{ id: 'ntp', status: 'success' }] }),
      cluster('ready', 3, { network: [{ id: 'ntp', status: 'failure' }] }),
    )!;
    expect(failing.newlyFailing).toEqual(['ntp']);
    expect(webhookClassesOf(failing)).toEqual(['validation-failing']);
    expect(liveChangeOf('apiToken', { orgId: 'o' }, { orgId: 'o' })).toBeUndefined();
    expect(liveChangeOf('cluster', cluster('ready', 2), undefined)).toMatchObject({ removed: true, changed: ['deleted'] });
  });

  it('reaches the subscribers of the resource, its cluster or infra-env, or the organisation', () => {
    const host = liveChangeOf(
      'host',
      { orgId: 'o', hostId: 'h', clusterId: 'c', infraEnvId: 'i', status: 'known', version: 1 },
      { orgId: 'o', hostId: 'h', clusterId: 'c', infraEnvId: 'i', status: 'installing', version: 2 },
    )!;
    expect(reaches(host, 'cluster:c')).toBe(true);
    expect(reaches(host, 'infra-env:i')).toBe(true);
    expect(reaches(host, 'cluster:d')).toBe(false);
    expect(reaches(host, 'org')).toBe(false);
    expect(subscriptionOf({ action: 'subscribe', cluster_id: 'not-a-uuid' })).toEqual({ problem: 'cluster_id must be a UUID' });
    expect(subscriptionOf({ org: true })).toEqual({ subscription: 'org' });
  });
});

describe('webhooks', () => {
  it('signs "<timestamp>.<body>" with HMAC-SHA256', () => {
    const signature = webhookSignature('s3cret', '1700000000', '{"a":1}');
    expect(signature).toBe(`sha256=${createHmac('sha256', 's3cret').update('1700000000.{"a":1}').digest('hex')}`);
    expect(verifyWebhookSignature('s3cret', '1700000000', '{"a":1}', signature)).toBe(true);
    expect(verifyWebhookSignature('other', '1700000000', '{"a":1}', signature)).toBe(false);
  });

  it('keeps endpoints on loopback locally and off private ranges in AWS', () => {
    expect(webhookUrlProblem('http://127.0.0.1:8080/x', 'loopback')).toBeUndefined();
    expect(webhookUrlProblem('http://[::1]/x', 'loopback')).toBeUndefined();
    expect(webhookUrlProblem('http://192.168.1.5/x', 'loopback')).toMatch(/this machine/);
    expect(webhookUrlProblem('http://192.168.1.5/x', 'any')).toBeUndefined();
    expect(webhookUrlProblem('https://10.1.2.3/x', 'public')).toMatch(/public address/);
    expect(webhookUrlProblem('https://169.254.169.254/x', 'public')).toMatch(/public address/);
    expect(webhookUrlProblem('http://hooks.example.com/x', 'public')).toMatch(/https/);
    expect(webhookUrlProblem('https://hooks.example.com/x', 'public')).toBeUndefined();
    for (const address of ['10.0.0.1', '172.20.0.1', '192.168.0.1', '127.0.0.1', '100.64.0.1', 'fd00::1', 'fe80::1', '::ffff:10.0.0.1'])
      expect(isNonPublicAddress(address), address).toBe(true);
    for (const address of ['8.8.8.8', '2606:4700::1111']) expect(isNonPublicAddress(address), address).toBe(false);
  });

  it('backs off, doubling up to the cap, until the window is over', () => {
    const settings = { baseDelayMs: 100, maxDelayMs: 400, windowMs: 1_000 };
    expect(nextWebhookAttempt(settings, 0, 1, 0)).toBe(100);
    expect(nextWebhookAttempt(settings, 0, 2, 100)).toBe(300);
    expect(nextWebhookAttempt(settings, 0, 5, 500)).toBe(900);
    expect(nextWebhookAttempt(settings, 0, 6, 900)).toBe(1_000);
    expect(nextWebhookAttempt(settings, 0, 7, 1_000)).toBeUndefined();
  });
});
