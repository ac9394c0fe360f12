import {progressText} from '../format/progress.js';
import type {JobEvent} from './job-types.js';
import type {JobProgress} from './progress-types.js';

// A job's progress verdict as job events, for the alerts pane, the charts' marks and the memory log's markers: one
// when a job becomes stalled or hung (or goes from one to the other), one when it progresses again. Headless prints
// its own progress lines (headless/progress-lines.ts), so these are the TUI's and the log's.

const stuck = (p: JobProgress | undefined): boolean => p?.verdict === 'stalled' || p?.verdict === 'hung';

export function progressEvents(
	previous: readonly JobProgress[] | null,
	current: readonly JobProgress[],
	time: number,
): JobEvent[] {
	if (previous === current) return [];
	return current.flatMap((p): JobEvent[] => {
		const before = previous?.find(q => q.job === p.job);
		const lead = p.odd.find(o => o.role === 'rank');
		const base = {time, job: p.job, rank: lead?.rank ?? null, pid: lead?.pid ?? null};
		if (stuck(p) && before?.verdict !== p.verdict) {
			const level = p.verdict === 'hung' ? 'critical' : 'warn';
			return [{...base, kind: 'job-hung', level, text: `job ${p.job}: ${progressText(p, time)}`}];
		}
		if (p.verdict === 'progressing' && stuck(before))
			return [{...base, kind: 'job-progressing', level: 'ok', text: `job ${p.job} is progressing again`}];
		return [];
	});
}
