import {NO_GPU_PROCESSES, type Snapshot} from '../core/types.js';
import {schedulerWire, schedulerWireKeys, stateFromWire} from '../scheduler/wire.js';
import {figuresOnly, type WireRankFigures, withFigures} from './rank-figures.js';
import {freshLastSave, fullRankSet, sameButAge, slimRankSet, type WireRankSet} from './wire-parts.js';

// A snapshot on the agent protocol (docs/agent-protocol.md): what the agent leaves out because the reader has it
// already, and how the reader puts the whole Snapshot back together from what it held.

/** The parts of a Snapshot sent only when they change. */
export const SLOW_PARTS = [
	'ranks',
	'checkpoints',
	'scheduler',
	'gpuProcesses',
	'readiness',
	'progress',
	'ncclRas',
	'jobMemory',
	'gpuUnseen',
	'hostConsumers',
] as const;
export type SlowPart = (typeof SLOW_PARTS)[number];

/** A Snapshot as sent: the bounded recent lists stay home (the receiver keeps its own), slow parts when changed. */
export type WireSnapshot = Omit<Snapshot, 'recentAlerts' | 'recentEvents' | SlowPart> &
	Partial<Pick<Snapshot, Exclude<SlowPart, 'ranks'>>> & {
		readonly ranks?: WireRankSet | null;
		/** In place of `ranks` when a scan renewed only each rank's figures (protocol 3). */
		readonly rankFigures?: WireRankFigures;
	};

/**
 * The snapshot as sent: slow parts only when they are not the objects sent last time (the Monitor keeps an object
 * until its source gives a new one, so identity is change), the checkpoint index not when only its last save aged,
 * and ranks once, in their jobs (agent/wire-parts.ts).
 */
export function wireSnapshot(snapshot: Snapshot, previous: Snapshot | null): WireSnapshot {
	const {recentAlerts: _alerts, recentEvents: _events, ...rest} = snapshot;
	const {scheduler, ranks: _ranks, ...others} = rest;
	// The scheduler's state: `scheduler`, and its detail under the scheduler's own key from before (scheduler/wire.ts).
	const wire: Record<string, unknown> = {...others, ...schedulerWire(scheduler)};
	for (const part of SLOW_PARTS) if (previous !== null && previous[part] === snapshot[part]) delete wire[part];
	if (previous !== null && previous.scheduler === scheduler) for (const key of schedulerWireKeys()) delete wire[key];
	if (previous !== null && sameButAge(previous.checkpoints, snapshot.checkpoints)) delete wire.checkpoints;
	// The ranks: none while the scan is the one sent; its figures alone when only they changed (agent/rank-figures.ts);
	// else the set, each rank once, made only then.
	if (previous === null || previous.ranks !== snapshot.ranks) {
		const figures = figuresOnly(previous?.ranks ?? null, snapshot.ranks);
		if (figures === null) wire.ranks = slimRankSet(snapshot.ranks);
		else wire.rankFigures = figures;
	}
	return wire as WireSnapshot;
}

/** The receiver's side: a whole Snapshot from a wire one and what it held before (slow parts carried over). */
export function fullSnapshot(
	wire: WireSnapshot,
	previous: Snapshot | null,
	recent: Pick<Snapshot, 'recentAlerts' | 'recentEvents'>,
): Snapshot {
	const carried = (part: SlowPart) => (part in wire ? wire[part] : (previous?.[part] ?? null));
	const {rankFigures, ...body} = wire;
	const held = previous?.ranks ?? null;
	return {
		...body,
		ranks:
			'ranks' in wire ? fullRankSet(wire.ranks ?? null) : rankFigures ? (withFigures(held, rankFigures) ?? held) : held,
		checkpoints:
			'checkpoints' in wire ? (wire.checkpoints ?? null) : freshLastSave(previous?.checkpoints ?? null, wire.time),
		scheduler: stateFromWire(wire) ?? (carried('scheduler') as Snapshot['scheduler']),
		gpuProcesses: (carried('gpuProcesses') ?? NO_GPU_PROCESSES) as Snapshot['gpuProcesses'],
		// An older agent sends none: no verdict, rather than one made up here.
		readiness: (carried('readiness') ?? []) as NonNullable<Snapshot['readiness']>,
		progress: (carried('progress') ?? []) as NonNullable<Snapshot['progress']>,
		ncclRas: carried('ncclRas') as Snapshot['ncclRas'],
		jobMemory: (carried('jobMemory') ?? []) as NonNullable<Snapshot['jobMemory']>,
		gpuUnseen: carried('gpuUnseen') as Snapshot['gpuUnseen'],
		hostConsumers: carried('hostConsumers') as Snapshot['hostConsumers'],
		...recent,
	};
}
