/**
 * Starts the embedded runtime's container tasks on its behalf (bin/local/containers.ts). Node's
 * spawn forks the calling process, and forking the runtime (gigabytes of address space across its
 * function threads) held its event loop for a large part of a second per task; this process is
 * small, so its forks are quick and the runtime's loop never waits on one. Plain JavaScript, no
 * loader: it must start fast and stay small.
 *
 * Over IPC: { type: 'run', id, command, args, env } in; { type: 'output', id, text },
 * { type: 'exit', id, code } and { type: 'error', id, message } out. When the runtime goes away
 * (its IPC channel closes), every task still running is killed with it.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

const running = new Map();
const send = (message) => {
  if (process.connected) process.send(message);
};

process.on('message', (message) => {
  if (message?.type !== 'run') return;
  const { id, command, args, env } = message;
  let child;
  try {
    child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    send({ type: 'error', id, message: error.message });
    return;
  }
  running.set(id, child);
  const forward = (chunk) => send({ type: 'output', id, text: chunk.toString('utf8') });
  child.stdout.on('data', forward);
  child.stderr.on('data', forward);
  child.on('error', (error) => {
    running.delete(id);
    send({ type: 'error', id, message: error.message });
  });
  child.on('close', (code) => {
    if (!running.delete(id)) return;
    send({ type: 'exit', id, code: code ?? 1 });
  });
});

// However it goes (the runtime gone, a signal, an error of its own), it takes its tasks with it.
const killTasks = () => {
  for (const child of running.values()) child.kill('SIGKILL');
};
process.on('exit', killTasks);
process.on('disconnect', () => process.exit(0));
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => process.exit(128 + constants.signals[signal]));
