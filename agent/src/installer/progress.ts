/**
 * coreos-installer's progress lines (`Read disk 168.9 MiB/3.4 GiB (4%)`) turned into the `NN%`
 * progress_info upstream's installer sends with stage `Writing image to disk`.
 */

/** Upstream matches `(.*?)\((.*?\%)\)\s*`: the last parenthesised percentage on the line. */
const PERCENT_IN_PARENS = /\((\d{1,3})(?:\.\d+)?%\)\s*$/;

/** The percentage on one line of coreos-installer output, or undefined when the line carries none. */
export function parseCoreosInstallerProgress(line: string): number | undefined {
  const match = PERCENT_IN_PARENS.exec(line.trimEnd());
  if (!match?.[1]) return undefined;
  const percent = Number.parseInt(match[1], 10);
  return percent >= 0 && percent <= 100 ? percent : undefined;
}

/** Sends are this far apart so a slow disk does not flood the service with progress PUTs. */
export const PROGRESS_STEP_POINTS = 5;

/**
 * Decides which percentages are worth reporting: a value at least 5 points above the last reported one,
 * and 100 once. Output arrives in arbitrary chunks (and coreos-installer redraws with `\r` on a
 * terminal), so `push` takes raw text and splits it itself.
 */
export class WriteProgressTracker {
  private lastReported = 0;
  private partial = '';

  constructor(private readonly report: (percent: number) => void) {}

  /** Feeds raw output; calls `report` for each percentage that should be sent. */
  push(chunk: string): void {
    const lines = (this.partial + chunk).split(/[\r\n]/);
    this.partial = lines.pop() ?? '';
    for (const line of lines) this.line(line);
  }

  /** Flushes a last line that had no newline. */
  end(): void {
    if (this.partial) this.line(this.partial);
    this.partial = '';
  }

  get lastPercent(): number {
    return this.lastReported;
  }

  private line(line: string): void {
    const percent = parseCoreosInstallerProgress(line);
    if (percent === undefined) return;
    const reachedEnd = percent === 100 && this.lastReported !== 100;
    if (percent >= this.lastReported + PROGRESS_STEP_POINTS || reachedEnd) {
      this.lastReported = percent;
      this.report(percent);
    }
  }
}
