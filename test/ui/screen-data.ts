import type {Alert, Checkpoint, MetricStatus, RankProcess, RankSet, Snapshot} from '../../src/core/types.js';
import type {ScreenLayout} from '../../src/ui/layout.js';
import {gpuColumnsFor, sparklineWidthFor} from '../../src/ui/panes/memory-layout.js';
import type {PaneBox} from '../../src/ui/panes/pane.js';
import type {ScreenData} from '../../src/ui/screen-data.js';
import {gpu} from '../helpers/snapshots.js';
import {alert, checkpoint, checkpointIndex, NOW, rank} from './fixtures.js';

/** One job of these ranks, built by hand: job() would copy 2048 ranks on every call. */
function oneJob(ranks: readonly RankProcess[]): RankSet {
	return {
		ranks,
		jobs: [
			{
				id: 'torchrun:9999',
				identity: 'elastic',
				launcher: null,
				ranks,
				worldSize: null,
				localWorldSize: null,
				allLocalRanksPresent: true,
				runDir: null,
				cwd: null,
				task: null,
			},
		],
		launcher: null,
		departed: [],
		ended: [],
		runDirMatch: null,
		sampledAt: NOW,
	};
}

// Screen data with so many GPUs, ranks, checkpoints and alerts: what the layout tests feed the
// panes' own need() functions. Lists repeat one item (need() counts, it does not read them), so a
// property test can ask for 2048 ranks thousands of times.

export interface LayoutCounts {
	readonly gpus: number;
	readonly ranks: number;
	readonly checkpoints: number;
	readonly alerts: number;
	/** False: no rank set (none found, scan failed, not sampled). */
	readonly ranksAvailable: boolean;
	/** False: no run dir. */
	readonly checkpointsAvailable: boolean;
	/** A save request's status line under the checkpoints header. */
	readonly checkpointStatus?: boolean;
}

const ONE_RANK: RankProcess = rank(0);
const ONE_CHECKPOINT: Checkpoint = checkpoint(100, 1);
const ONE_ALERT: Alert = alert(1, 'ram', 'ok', 'warn', 80);
const METRICS: Record<string, MetricStatus> = {};

export function screenData(counts: LayoutCounts): ScreenData {
	const snapshot: Snapshot = {
		time: NOW,
		host: 'node1',
		tick: 1,
		memory: null,
		memoryError: null,
		gpu:
			counts.gpus === 0
				? {status: 'absent', reason: 'nvidia-smi not found on PATH'}
				: {status: 'ok', gpus: Array.from({length: counts.gpus}, (_, i) => gpu(i, 50)), sampledAt: NOW, warning: null},
		gpuProcesses: {processes: [], sampledAt: null, error: null},
		ranks: counts.ranksAvailable ? oneJob(new Array<RankProcess>(counts.ranks).fill(ONE_RANK)) : null,
		ranksError: null,
		checkpoints: counts.checkpointsAvailable
			? checkpointIndex({checkpoints: new Array<Checkpoint>(counts.checkpoints).fill(ONE_CHECKPOINT)})
			: null,
		metrics: METRICS,
		newAlerts: [],
		recentAlerts: new Array<Alert>(counts.alerts).fill(ONE_ALERT),
		events: [],
		recentEvents: [],
	};
	return {
		snapshot,
		host: 'node1',
		history: {},
		cursor: 0,
		marked: new Set(),
		saveStatus: counts.checkpointStatus ? {text: 'waiting for checkpoint…', level: 'ok'} : null,
		actionSignals: ['SIGUSR1', 'SIGTERM'],
	};
}

/** The memory pane's box with what the memory pane derives from it (GPU gauges a line, sparklines). */
export interface MemoryBoxView extends PaneBox {
	readonly gpuColumns: number;
	readonly sparklineWidth: number;
}

/** A laid-out screen's boxes by pane, as the layout tests read them. */
export interface Panes {
	readonly memory: MemoryBoxView;
	readonly history: PaneBox;
	readonly ranks: PaneBox;
	readonly checkpoints: PaneBox;
	readonly alerts: PaneBox;
}

export function panesOf(layout: ScreenLayout, counts: LayoutCounts): Panes {
	const box = (id: string): PaneBox => {
		const found = layout.boxes[id];
		if (!found) throw new Error(`no box for pane ${id}`);
		return found;
	};
	const memory = box('memory');
	return {
		memory: {
			...memory,
			gpuColumns: gpuColumnsFor(counts.gpus, memory.width, memory.budget),
			sparklineWidth: sparklineWidthFor(memory.width),
		},
		history: box('history'),
		ranks: box('ranks'),
		checkpoints: box('checkpoints'),
		alerts: box('alerts'),
	};
}
