import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileReplacer, replaceFileSync } from '../../bin/local/replaced-files.js';

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

  it('reports a failed write, and flush rejects with it once', async () => {
    const dir = scratch();
    const blocker = path.join(dir, 'not-a-directory');
    writeFileSync(blocker, 'a file where a directory should be');
    const failures: string[] = [];
    const replacer = new FileReplacer((file) => failures.push(path.basename(file)));
    replacer.replace(path.join(blocker, 'state.json'), () => 'x');
    await expect(replacer.flush()).rejects.toThrow();
    expect(failures).toEqual(['state.json']);
    await expect(replacer.flush()).resolves.toBeUndefined();
    // A later write of another file still goes through.
    replacer.replace(path.join(dir, 'ok.json'), () => 'ok');
    await replacer.flush();
    expect(existsSync(path.join(dir, 'ok.json'))).toBe(true);
  });
});
