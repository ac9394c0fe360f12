import type {Snapshot} from '../core/types.js';
import {putCheckpoints} from './checkpoint-samples.js';
import {putGpus} from './gpu-samples.js';
import {putJobs, rankSeriesOf} from './job-samples.js';
import {putNode} from './node-samples.js';
import {putWith, type Sample} from './samples.js';

// One scrape's samples, from the latest snapshot of each node: pure (the clock and the link states are given), so
// the tests build it from real Snapshot objects and the server only adds the text and the socket.

/** The most rank entries a response carries: beyond, every per-rank family is left out (the response stays bounded). */
const MAX_RANK_SERIES = 4096;
/**
 * Nodes are added while the response holds fewer series than this; the nodes after are left out. 64 nodes of 8 GPUs
 * and 8 ranks are 13,570 series (1.1 MiB, some 40 ms of prom-client here): the bound is well beyond a real fleet and
 * keeps a runaway one to a few MiB.
 */
const MAX_SERIES = 50_000;

export interface ScrapeInput {
	/** Each node's latest snapshot, by node name (the one-node session: its host). */
	readonly snapshots: ReadonlyMap<string, Snapshot>;
	/** Many nodes (an agents session): node-scoped series carry `node`, and each node's link is `traintop_node_up`. */
	readonly many: boolean;
	/** With many nodes: every node named, connected or not (a node that never answered has no snapshot). */
	readonly links?: ReadonlyMap<string, boolean>;
	readonly version: string;
	/** Seconds the previous scrape took; null before the first. */
	readonly previousScrapeS: number | null;
	/** Epoch ms of this scrape. */
	readonly now: number;
	/** The bounds: MAX_RANK_SERIES and MAX_SERIES unless a test says otherwise. */
	readonly maxRankSeries?: number;
	readonly maxSeries?: number;
}

export function scrapeSamples(input: ScrapeInput): Sample[] {
	const samples: Sample[] = [];
	let ranks = 0;
	for (const snapshot of input.snapshots.values()) ranks += rankSeriesOf(snapshot);
	const withRanks = ranks <= (input.maxRankSeries ?? MAX_RANK_SERIES);
	let truncated = !withRanks;
	for (const [node, snapshot] of input.snapshots) {
		if (samples.length >= (input.maxSeries ?? MAX_SERIES)) {
			truncated = true;
			break;
		}
		const put = putWith(samples, input.many ? {node, host: snapshot.host} : {host: snapshot.host});
		putNode(put, snapshot, input.now);
		putGpus(put, snapshot);
		putJobs(put, snapshot, withRanks);
		putCheckpoints(put, snapshot, input.now);
	}
	const own = putWith(samples, {});
	for (const [node, up] of input.links ?? []) own('traintop_node_up', {node}, up);
	own('traintop_scrape_duration_seconds', {}, input.previousScrapeS);
	// Set once the bounds are applied: it says whether anything above was left out.
	own('traintop_exporter_truncated', {}, truncated);
	own('traintop_build_info', {version: input.version}, 1);
	return samples;
}
