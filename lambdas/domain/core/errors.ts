/**
 * Failures the domain and use cases report. Each maps to one HTTP status in the platform layer;
 * the message is shown to the caller, so it must be something a person can act on and must
 * never contain a secret.
 */
export type ProblemKind =
  | 'bad-request'
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'conflict'
  | 'payload-too-large'
  | 'unprocessable'
  | 'unsupported-media-type'
  | 'unavailable';

export class DomainError extends Error {
  constructor(
    readonly kind: ProblemKind,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const badRequest = (message: string) => new DomainError('bad-request', message);
/** Refuses the request with the reason a check gave (400), or lets it pass when the check found nothing. */
export function refuseIfProblem(reason: string | undefined): void {
  if (reason) throw badRequest(reason);
}
export const notFound = (message: string) => new DomainError('not-found', message);
/** Well-formed but refused by a rule upstream answers 422 for (a manifest name with a space). */
export const unprocessable = (message: string) => new DomainError('unprocessable', message);
export const conflict = (message: string) => new DomainError('conflict', message);
export const unauthorized = (message: string) => new DomainError('unauthorized', message);
export const forbidden = (message: string) => new DomainError('forbidden', message);

/** What a caught failure says: the parsers throw Errors, but a catch clause cannot know it. */
export const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));
