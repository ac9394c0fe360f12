// A judgement's level, apart from the shapes that carry it (types.ts, job-types.ts), which both import it.
export type Level = 'ok' | 'warn' | 'critical';
