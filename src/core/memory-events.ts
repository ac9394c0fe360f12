import {memoryGrowingText, memorySteadyText} from '../format/memory-trend.js';
import type {JobEvent} from './job-types.js';
import type {JobMemory, ProcessTrend} from './memory-types.js';

// The leak judgements (core/memory-trend.ts) as job events: `memory-growing` (warn) when a rank or worker becomes
// growing, `memory-steady` (ok) when one named growing is steady again. A process that leaves (exits) says nothing
// here: its exit is its own event.

const key = (t: ProcessTrend) => `${t.role}:${t.pid}`;

export function memoryEvents(
	previous: readonly JobMemory[] | null,
	current: readonly JobMemory[],
	time: number,
): JobEvent[] {
	if (previous === current) return [];
	const before = new Map<string, ProcessTrend>();
	for (const job of previous ?? []) for (const t of job.trends) before.set(`${job.job}|${key(t)}`, t);
	return current.flatMap(job =>
		job.trends.flatMap((t): JobEvent[] => {
			const was = before.get(`${job.job}|${key(t)}`)?.state;
			const base = {time, job: job.job, rank: t.rank, pid: t.pid};
			const growth = {role: t.role, bytesPerMin: t.bytesPerMin, reachesThresholdAt: job.reachesThresholdAt};
			if (t.state === 'growing' && was !== 'growing') {
				const text = memoryGrowingText(t, job.job, job.reachesThresholdAt, time);
				return [{...base, kind: 'memory-growing', level: 'warn', text, growth}];
			}
			if (t.state === 'steady' && was === 'growing')
				return [{...base, kind: 'memory-steady', level: 'ok', text: memorySteadyText(t, job.job), growth}];
			return [];
		}),
	);
}
