import type {Dispatch} from 'react';
import {stacksLines} from '../../format/stacks.js';
import type {SessionActions} from '../../session/actions.js';
import type {StacksEffect} from '../detail-view.js';
import {detailTitle} from '../rank-detail-lines.js';
import type {UiEvent} from '../state.js';
import type {TuiStore} from '../tui-session.js';

// `w` in a rank's detail: where the rank and its workers are, read through the session (this node's /proc, py-spy
// when on PATH) and shown in the same box. Only the rank the latest snapshot has on that pid (with its workers) is
// read, as a signal would only reach it; an answer for a box since closed or moved to another rank is dropped by the
// reducer (detail-view.ts).

export function runStacksEffect(
	effect: StacksEffect,
	dispatch: Dispatch<UiEvent>,
	store: TuiStore,
	actions: SessionActions,
): void {
	const {pid} = effect;
	const rank = store.getSnapshot()?.ranks?.ranks.find(r => r.pid === pid);
	if (!rank) {
		dispatch({type: 'detail-failed', pid, message: `pid ${pid} is no longer a rank: it has exited (see the alerts)`});
		return;
	}
	const title = `${detailTitle(rank)} · where`;
	if (!actions.rankStacks) {
		const lines = [
			"Where a rank is, is read on its own node only: this rank's node is watched through its agent, which does",
			`not read stacks. On that node: traintop stacks --pid ${pid}`,
		];
		dispatch({type: 'detail-loaded', pid, title, lines});
		return;
	}
	actions.rankStacks(rank).then(
		read => dispatch({type: 'detail-loaded', pid, title, lines: stacksLines(read.processes, read.pySpy)}),
		(error: unknown) => dispatch({type: 'detail-failed', pid, message: `${title}: ${(error as Error).message}`}),
	);
}
