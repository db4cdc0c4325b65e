/**
 * Timers standing in for EventBridge Scheduler: each schedule invokes its function on its rate,
 * never overlapping itself, with the same event shape a scheduled invocation carries.
 */
export interface Schedule {
  name: string;
  function: string;
  expression: string;
}

const UNITS: Record<string, number> = {
  minute: 60_000,
  minutes: 60_000,
  hour: 3_600_000,
  hours: 3_600_000,
  day: 86_400_000,
  days: 86_400_000,
  second: 1_000,
  seconds: 1_000,
};

/** Parses `rate(N unit)`; seconds are accepted locally so monitors can tick faster in tests. */
export function rateMs(expression: string): number {
  const match = /^rate\((\d+)\s+(\w+)\)$/.exec(expression.trim());
  const unit = match && UNITS[match[2]!];
  if (!match || !unit || Number(match[1]) < 1) {
    throw new Error(`schedule expression "${expression}" is not rate(N minute[s]|hour[s]|day[s]|second[s])`);
  }
  return Number(match[1]) * unit;
}

export function startScheduler(
  schedules: Schedule[],
  invoke: (functionName: string, event: unknown) => Promise<unknown>,
  options: { log?: (message: string) => void; overrideMs?: Record<string, number> } = {},
): { stop(): Promise<void>; ticks: Record<string, number> } {
  const timers: NodeJS.Timeout[] = [];
  const inFlight = new Set<Promise<unknown>>();
  const ticks: Record<string, number> = {};
  for (const schedule of schedules) {
    const every = options.overrideMs?.[schedule.name] ?? rateMs(schedule.expression);
    let busy = false;
    ticks[schedule.name] = 0;
    timers.push(
      setInterval(() => {
        if (busy) return;
        busy = true;
        ticks[schedule.name]! += 1;
        const run = invoke(schedule.function, {
          version: '0',
          id: crypto.randomUUID(),
          'detail-type': 'Scheduled Event',
          source: 'aws.scheduler',
          time: new Date().toISOString(),
          resources: [`local:schedule/${schedule.name}`],
          detail: {},
        })
          .catch((error: Error) => options.log?.(`schedule ${schedule.name} failed: ${error.message}`))
          .finally(() => {
            busy = false;
            inFlight.delete(run);
          });
        inFlight.add(run);
      }, every),
    );
  }
  return {
    ticks,
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await Promise.allSettled([...inFlight]);
    },
  };
}
