import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileReplacer, removeLeftoverTemporaries, replaceFileSync } from '../../bin/local/replaced-files.js';

const dirs: string[] = [];
const scratch = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'replaced-files-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('replaceFileSync', () => {
  it('replaces the file whole, creating its directory, with the mode asked for and no temporary left', () => {
    const file = path.join(scratch(), 'nested', 'state.json');
    replaceFileSync(file, 'first', { mode: 0o600 });
    replaceFileSync(file, 'second', { mode: 0o600 });
    expect(readFileSync(file, 'utf8')).toBe('second');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(path.dirname(file))).toEqual(['state.json']);
  });
});

describe('FileReplacer', () => {
  it('folds asks made while a write is in flight into one later write of the newest contents', async () => {
    const file = path.join(scratch(), 'execution.json');
    const replacer = new FileReplacer();
    let built = 0;
    let state = 0;
    for (let step = 1; step <= 100; step += 1) {
      state = step;
      replacer.replace(file, () => {
        built += 1;
        return JSON.stringify({ step: state });
      });
    }
    await replacer.flush();
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ step: 100 });
    // The first write started at once; the other 99 asks became one write.
    expect(built).toBe(2);
    expect(readdirSync(path.dirname(file))).toEqual(['execution.json']);
  });

  it('never lets an older write land after a newer one, across many files written at once', async () => {
    const dir = scratch();
    const replacer = new FileReplacer();
    const latest = new Map<string, number>();
    for (let round = 0; round < 30; round += 1) {
      for (let index = 0; index < 10; index += 1) {
        const file = path.join(dir, `file-${index}.json`);
        latest.set(file, round);
        replacer.replace(file, () => String(round));
      }
      if (round % 7 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await replacer.flush();
    for (const [file, round] of latest) expect(readFileSync(file, 'utf8')).toBe(String(round));
  });

  it('answers an ask once the file holds it; a failed write rejects its ask, is tried again by flush, and flush names it while it fails', async () => {
    const dir = scratch();
    const blocker = path.join(dir, 'blocked');
    writeFileSync(blocker, 'a file where a directory should be');
    const failures: string[] = [];
    const replacer = new FileReplacer((file) => failures.push(path.basename(file)));
    await replacer.replace(path.join(dir, 'ok.json'), () => 'ok');
    expect(readFileSync(path.join(dir, 'ok.json'), 'utf8')).toBe('ok');

    const file = path.join(blocker, 'state.json');
    await expect(replacer.replace(file, () => 'first')).rejects.toThrow();
    await expect(replacer.flush()).rejects.toThrow(/1 state file\(s\) could not be written, state\.json among them/);
    expect(failures.length).toBeGreaterThanOrEqual(2);
    // Once the way is clear, flush writes the newest contents and succeeds.
    rmSync(blocker);
    await replacer.flush();
    expect(readFileSync(file, 'utf8')).toBe('first');
    expect(readdirSync(blocker)).toEqual(['state.json']);
  });

  it('writes nothing after close, and a start removes the temporaries a killed process left', async () => {
    const dir = scratch();
    const replacer = new FileReplacer();
    void replacer.replace(path.join(dir, 'a.json'), () => 'before');
    await replacer.close();
    await replacer.replace(path.join(dir, 'a.json'), () => 'after');
    await replacer.flush();
    expect(readFileSync(path.join(dir, 'a.json'), 'utf8')).toBe('before');

    writeFileSync(path.join(dir, 'a.json.4242.tmp'), 'half');
    removeLeftoverTemporaries(dir);
    expect(readdirSync(dir)).toEqual(['a.json']);
  });
});
