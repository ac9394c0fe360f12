import type {RankProcess, RankSet} from '../core/types.js';

// A rank scan (every few seconds) renews every rank's CPU and memory, and so the rank set: sent whole, it was ~10 KB
// a node (8 ranks: command lines, seven signal dispositions each) for ~1 KB of news, and at 64 nodes the largest
// part of what the many-node viewer parses. When the jobs and ranks are those of the set sent before, in the same
// order, with the same identities, commands, signals and workers, only each rank's figures travel (protocol 3);
// anything else that changed sends the whole set again.

/** What of a rank one scan renews; everything else of it, and of its job, is its shape. */
const FIGURES = ['cpuPercent', 'rssBytes', 'gpuMemoryBytes', 'state', 'stalled', 'stopped'] as const;
const FIGURE_KEYS: ReadonlySet<string> = new Set<string>([...FIGURES, 'sampledAt']);

/** One rank's figures, named by its pid (the receiver checks it against the rank it holds in that place). */
export type RankFigures = Pick<RankProcess, 'pid' | (typeof FIGURES)[number]>;

/** A scan as sent when only figures changed: the scan's time, and every rank's figures in the set's order. */
export interface WireRankFigures {
	readonly sampledAt: number;
	readonly ranks: readonly RankFigures[];
}

/** The set without its figures and scan time, as text; kept per set, since each set is compared twice. */
const shapes = new WeakMap<RankSet, string>();
function shapeOf(set: RankSet): string {
	let shape = shapes.get(set);
	if (shape === undefined) {
		shape = JSON.stringify(set, (key, value: unknown) => (FIGURE_KEYS.has(key) ? undefined : value));
		shapes.set(set, shape);
	}
	return shape;
}

const ranksOf = (set: RankSet): RankProcess[] => set.jobs.flatMap(job => job.ranks);

/** `now`'s figures when it has `sent`'s shape; null when it must be sent whole (or not at all: the same set). */
export function figuresOnly(sent: RankSet | null, now: RankSet | null): WireRankFigures | null {
	if (sent === null || now === null || sent === now || shapeOf(sent) !== shapeOf(now)) return null;
	return {
		sampledAt: now.sampledAt,
		ranks: ranksOf(now).map(rank => ({
			pid: rank.pid,
			cpuPercent: rank.cpuPercent,
			rssBytes: rank.rssBytes,
			gpuMemoryBytes: rank.gpuMemoryBytes,
			state: rank.state,
			stalled: rank.stalled,
			stopped: rank.stopped,
		})),
	};
}

/**
 * The receiver's side: the set it holds with each rank's figures from the scan; null when they do not fit it (another
 * count, another pid in a place: a message it never read), and the set held stays as it was rather than show one
 * rank's figures on another.
 */
export function withFigures(held: RankSet | null, figures: WireRankFigures): RankSet | null {
	if (held === null) return null;
	const sent = figures.ranks;
	if (ranksOf(held).length !== sent.length) return null;
	let at = 0;
	let fits = true;
	const jobs = held.jobs.map(job => ({
		...job,
		ranks: job.ranks.map(rank => {
			const figure = sent[at++]!;
			if (figure.pid !== rank.pid) fits = false;
			return {
				...rank,
				cpuPercent: figure.cpuPercent,
				rssBytes: figure.rssBytes,
				gpuMemoryBytes: figure.gpuMemoryBytes,
				state: figure.state,
				stalled: figure.stalled,
				stopped: figure.stopped,
			};
		}),
	}));
	if (!fits) return null;
	return {...held, jobs, ranks: jobs.flatMap(job => job.ranks), sampledAt: figures.sampledAt};
}
