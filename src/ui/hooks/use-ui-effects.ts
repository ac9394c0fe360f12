import {type Dispatch, useEffect} from 'react';
import type {SaveOutcome} from '../../checkpoints/save-attribution.js';
import type {ExitStatus} from '../../core/types.js';
import {printable} from '../../format/printable.js';
import type {RankDetail} from '../../ranks/detail.js';
import type {SessionActions} from '../../session/actions.js';
import {detailTitle, rankDetailLines} from '../rank-detail-lines.js';
import {rankGpuLines} from '../rank-gpu-lines.js';
import {type SaveWatch, saveFinished} from '../send-status.js';
import {runFleetSend} from '../fleet/fleet-send.js';
import type {FleetJobActions} from '../fleet/fleet-job-actions.js';
import type {FleetView} from '../../fleet/fleet.js';
import type {SendEffect} from '../send-flow.js';
import type {Effect, UiEvent} from '../state.js';
import type {TuiSession, TuiStore} from '../tui-session.js';
import {runStacksEffect} from './stacks-effect.js';
import {suspendProcess} from './use-suspend.js';

/** What a send across nodes goes through: every node's agent, and the fleet's view as it is when it runs. */
export interface AcrossNodes {
	readonly view: () => FleetView;
	readonly actions: FleetJobActions;
}

/**
 * Runs the effects the reducer queued, once each, and feeds their results back to it as events:
 * a send's outcomes, the save's checkpoint (or its timeout, or the job's exit), the analysis, a rank's detail.
 * Results that arrive after the app is gone are dropped by React. A save watch needs no unmount
 * cleanup: it ends when awaitSave settles, which closing the session makes it do at once. `node`: the session of
 * the node whose view is open (null on the list of nodes); `across`: the fleet, for a send to a job across nodes.
 */
export default function useUiEffects(
	effects: readonly Effect[],
	dispatch: Dispatch<UiEvent>,
	node: TuiSession | null,
	across: AcrossNodes | null,
	quit: () => void,
): void {
	useEffect(() => {
		if (effects.length === 0) return;
		dispatch({type: 'effects-taken', count: effects.length});
		for (const effect of effects) {
			switch (effect.kind) {
				case 'quit':
					quit();
					break;
				case 'suspend':
					suspendProcess();
					break;
				case 'send':
					if ('target' in effect) {
						if (across) void runFleetSend(effect, across.view, across.actions, dispatch);
					} else if (node) void send(effect, dispatch, node.monitor, node.actions);
					break;
				case 'analyze':
					if (!node) break;
					node.actions.analyze(effect.width).then(
						lines => dispatch({type: 'analysis-loaded', lines}),
						(error: unknown) => dispatch({type: 'analysis-failed', message: (error as Error).message}),
					);
					break;
				case 'detail':
					if (node) detail(effect, dispatch, node.monitor, node.actions);
					break;
				case 'stacks':
					if (node) runStacksEffect(effect, dispatch, node.monitor, node.actions);
					break;
			}
		}
	}, [effects, dispatch, node, across, quit]);
}

/**
 * The rank as the latest snapshot has it (by pid: the list may have moved since Enter), read once through
 * /proc; a rank gone from the snapshot or from /proc gets the words for that, not the old scan's numbers. A rank on
 * another node is read by its agent, later: its answer goes to the box only while the box is still this rank's (the
 * reducer drops an answer about another pid).
 */
function detail(
	effect: Extract<Effect, {kind: 'detail'}>,
	dispatch: Dispatch<UiEvent>,
	store: TuiStore,
	actions: SessionActions,
): void {
	const snapshot = store.getSnapshot();
	const rank = snapshot?.ranks?.ranks.find(r => r.pid === effect.pid);
	const {pid} = effect;
	if (!snapshot || !rank) {
		dispatch({type: 'detail-failed', pid, message: `pid ${pid} is no longer a rank: it has exited (see the alerts)`});
		return;
	}
	const show = (read: RankDetail | null): void => {
		if (!read) {
			dispatch({type: 'detail-failed', pid, message: `${detailTitle(rank)}: it has exited since the last scan`});
			return;
		}
		// The snapshot as of the answer: a remote one comes a moment later, with newer events and GPU readings.
		const latest = store.getSnapshot() ?? snapshot;
		const gpus = rankGpuLines([rank.pid, ...rank.workers], latest.gpuProcesses, latest.gpu);
		const history = store.getRankHistory(rank.pid, rank.startTime);
		const lines = rankDetailLines(read, latest.recentEvents, effect.width, history, gpus);
		dispatch({type: 'detail-loaded', pid, title: detailTitle(rank), lines});
	};
	const read = actions.rankDetail(rank);
	// This node's /proc is read at once: shown in the same render, without a "reading" frame.
	if (!(read instanceof Promise)) {
		show(read);
		return;
	}
	read.then(show, (error: unknown) =>
		dispatch({type: 'detail-failed', pid, message: `${detailTitle(rank)}: ${(error as Error).message}`}),
	);
}

async function send(
	effect: Exclude<SendEffect, {target: unknown}>,
	dispatch: Dispatch<UiEvent>,
	store: TuiStore,
	actions: SessionActions,
): Promise<void> {
	const signal = actions.signalOf(effect.action);
	const base = {action: effect.action, signal, job: effect.job};
	// The job and its ranks as they are now: found by id, so a job gone since the confirm box opened gets
	// nothing, and a pid that left it (or was reused by another job) is not a target.
	const job = store.getSnapshot()?.ranks?.jobs.find(j => j.id === effect.job);
	if (!job) {
		dispatch({...base, type: 'send-skipped', lines: [`job ${printable(effect.job)} is gone: nothing was sent`]});
		return;
	}
	// Each rank as the box showed it: the scan's rank on that pid, with the start time the box saw. ranks/send.ts re-reads
	// /proc right before kill(2), so a pid now held by another process (a new RANK=0 after a restart, or PID reuse) is
	// `gone`, never a new target: the rescan's start time is not taken on trust.
	const live = new Map(job.ranks.map(r => [r.pid, r]));
	const shown = effect.identities.flatMap(identity => {
		const rank = live.get(identity.pid);
		return rank ? [{...rank, startTime: identity.startTime}] : [];
	});
	if (shown.length === 0) {
		dispatch({
			...base,
			type: 'send-skipped',
			lines: [`none of the chosen ranks of job ${printable(job.id)} is left: nothing was sent`],
		});
		return;
	}
	const sentAt = Date.now();
	const expect = effect.action === 'save' ? 'manual' : 'emergency';
	const results = await actions.send(
		signal,
		{...job, ranks: shown},
		shown.map(r => r.pid),
		expect,
	);
	const awaitSave = job.runDir !== null ? actions.awaitSave : null;
	const watch: SaveWatch = awaitSave ? 'watching' : actions.runDir !== null ? 'not-this-job' : 'no-run-dir';
	dispatch({...base, type: 'sent', results, sentAt, watch});
	if (!awaitSave || !results.some(r => r.outcome === 'sent')) return;

	let exited = false;
	// An emergency signal ends the job: its end, seen before the emergency checkpoint, is the answer then.
	const stopWatchingJob =
		effect.action === 'emergency'
			? watchJobEnd(store, job.id, sentAt, exit => {
					exited = true;
					dispatch({type: 'job-exited', sentAt, signal, job: effect.job, exit});
				})
			: (): void => undefined;
	void awaitSave(sentAt, expect).then((outcome: SaveOutcome) => {
		stopWatchingJob();
		// After the job's exit, only a checkpoint is news: "none within the timeout" says less than the exit did.
		if (exited && outcome.checkpoint === null) return;
		dispatch(saveFinished(signal, sentAt, outcome, actions.timeoutS));
	});
}

/** Calls `onEnd` once, when a snapshot lists job `id` as ended at or after `sinceMs`; returns the unsubscribe. */
function watchJobEnd(
	store: TuiStore,
	id: string,
	sinceMs: number,
	onEnd: (exit: ExitStatus | null) => void,
): () => void {
	let done = false;
	let off: (() => void) | null = null;
	const stop = (): void => {
		done = true;
		off?.();
	};
	off = store.subscribe(snapshot => {
		if (done) return;
		const ended = snapshot.ranks?.ended.find(job => job.id === id && job.endedAt >= sinceMs);
		if (!ended) return;
		stop();
		onEnd(ended.exit);
	});
	// A store that answers at once, inside subscribe, is unsubscribed here.
	if (done) off();
	return stop;
}
