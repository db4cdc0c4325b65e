/** The command line: upstream's flags and Go flag syntax, the fleet's options, and clear usage errors. */
import { describe, expect, it } from 'vitest';
import { fleetProfiles, parseCommandLine, parseDurations, USAGE, UsageError } from '../../../agent/src/cli.js';

describe('agent command line', () => {
  it("accepts the flags the discovery ignition passes upstream's agent, Go syntax included", () => {
    const { command, flags } = parseCommandLine([
      '--url',
      'https://api.example.com',
      '--infra-env-id',
      'ie',
      '--agent-version',
      'quay.io/a:1',
      '--insecure=false',
      '-interval',
      '5',
      '--with-journal-logging=true',
      '--host-id',
      'h',
    ]);
    expect(command).toBe('agent');
    expect(flags).toMatchObject({
      url: 'https://api.example.com',
      'infra-env-id': 'ie',
      'agent-version': 'quay.io/a:1',
      insecure: false,
      interval: '5',
      'with-journal-logging': true,
      'host-id': 'h',
    });
    expect(parseCommandLine(['--url=u', '--infra-env-id=i', '--insecure']).flags).toMatchObject({ url: 'u', 'infra-env-id': 'i', insecure: true });
  });

  it('refuses unknown flags with a usage error', () => {
    expect(() => parseCommandLine(['--url', 'u', '--cluster-id', 'c'])).toThrow(UsageError);
  });

  it('builds a fleet from --profiles-mix or --count/--profile', () => {
    const mix = fleetProfiles(parseCommandLine(['fleet', '--profiles-mix', 'master:3,worker:2']).flags);
    expect(mix.map((p) => p.name)).toEqual(['master', 'master', 'master', 'worker', 'worker']);
    expect(fleetProfiles(parseCommandLine(['fleet', '--count', '4', '--profile', 'sno']).flags).map((p) => p.name)).toEqual(['sno', 'sno', 'sno', 'sno']);
    expect(() => fleetProfiles(parseCommandLine(['fleet', '--profiles-mix', 'master']).flags)).toThrow(/PROFILE:COUNT/);
    expect(() => fleetProfiles(parseCommandLine(['fleet', '--profile', '/nonexistent.json']).flags)).toThrow(/not a built-in profile/);
  });

  it('shows in the fleet usage every timing flag the fleet honours', () => {
    const fleetUsage = USAGE.slice(USAGE.indexOf('assisted-agent fleet'), USAGE.indexOf('assisted-agent inventory'));
    for (const flag of ['--interval', '--max-poll-interval', '--stagger-ms', '--install-durations']) expect(fleetUsage).toContain(flag);
  });

  it('reads install durations as stage=ms pairs or JSON', () => {
    expect(parseDurations('Writing image to disk=5000,Rebooting=200')).toEqual({ 'Writing image to disk': 5000, Rebooting: 200 });
    expect(parseDurations('{"Installing": 10}')).toEqual({ Installing: 10 });
    expect(() => parseDurations('Installing=soon')).toThrow(UsageError);
  });
});
