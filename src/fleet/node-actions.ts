import type {SaveExpectation} from '../checkpoints/save-attribution.js';
import {thresholdsFrom} from '../config/thresholds.js';
import type {Settings} from '../config/schema.js';
import type {Job, RankProcess} from '../core/types.js';
import {analyze} from '../memlog/analyze.js';
import {readSeries} from '../memlog/reader.js';
import {SkippedLines} from '../memlog/skipped-lines.js';
import {formatReport} from '../memlog/report.js';
import type {SendResult} from '../ranks/send.js';
import {expectationOf, type SessionActions} from '../session/actions.js';
import type {Fleet} from './fleet.js';
import {askRankDetail} from './node-detail.js';
import {awaitNodeSave} from './node-save.js';

// What a view may do on one node of many, through that node's agent: a signal goes as a command naming the job and
// each rank's identity (pid, start time), and the agent applies every guard of ranks/send.ts there; the save is
// confirmed by its effect, the new checkpoint in that node's next snapshots; a rank's detail is read by the agent
// from the node's /proc. Same contract as session/actions.ts.

export interface NodeActionSources {
	readonly fleet: Fleet;
	readonly node: string;
	readonly settings: Settings;
	/** The node's memory log (written here, by the viewer); null with --no-log. */
	readonly logPath: string | null;
	/** How long a rank's detail waits for the agent before the last scan is shown instead (node-detail.ts). */
	readonly detailTimeoutMs?: number;
}

/** The agent's words for a command it could not carry out, as one result per rank asked for. */
function allRanks(ranks: readonly RankProcess[], outcome: SendResult['outcome'], reason: string): SendResult[] {
	return ranks.map(rank => ({rank: rank.rank, pid: rank.pid, outcome, reason}));
}

export function nodeActions({fleet, node, settings, logPath, detailTimeoutMs}: NodeActionSources): SessionActions {
	// Read on every frame of the node's view (the overlay's run dir): one node's view, not the fleet's.
	const runDir = () => fleet.node(node)?.hello?.run_dir ?? null;
	return {
		signalOf: action => (action === 'save' ? settings.saveSignal : settings.emergencySignal),
		send: async (signal, job: Job, pids, expect) => {
			const chosen = pids ? job.ranks.filter(rank => pids.includes(rank.pid)) : job.ranks;
			const ranks = chosen.map(rank => ({pid: rank.pid, start_time: rank.startTime}));
			// What the save asks for goes with it: the node's watcher takes the next save for that kind.
			const asked = expect ?? expectationOf(signal, settings);
			const command = {kind: 'signal', job: job.id, signal, ranks, ...(asked ? {expect: asked} : {})} as const;
			const outcome = await fleet.send(node, command);
			if (outcome.kind === 'unreachable') return allRanks(chosen, 'denied', outcome.why);
			const {reply} = outcome;
			if (reply.refused !== null) return allRanks(chosen, 'refused', `${node}: ${reply.refused}`);
			return reply.results;
		},
		get awaitSave() {
			return runDir() === null
				? null
				: (sinceMs: number, expect: SaveExpectation) =>
						awaitNodeSave(fleet, node, sinceMs, expect, settings.timeout * 1000);
		},
		get runDir() {
			return runDir();
		},
		timeoutS: settings.timeout,
		analyze: async width => {
			if (!logPath) return ['No memory log: traintop runs with --no-log, so there is nothing to analyse.'];
			// Counted, a few kept: constant memory however bad the log is (memlog/skipped-lines.ts).
			const skipped = new SkippedLines();
			const series = await readSeries([logPath], skipped);
			return formatReport(analyze(series, thresholdsFrom(settings)), {
				format: 'text',
				width,
				files: [logPath],
				skipped: skipped.total,
			}).split('\n');
		},
		// Its /proc is over there: the node's agent reads it.
		rankDetail: rank => askRankDetail(fleet, node, rank, detailTimeoutMs),
	};
}
