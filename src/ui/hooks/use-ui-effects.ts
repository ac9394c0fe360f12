import {type Dispatch, useEffect} from 'react';
import {localTime} from '../../format/time.js';
import type {SessionActions} from '../../session/actions.js';
import type {Effect, UiEvent} from '../state.js';
import type {TuiStore} from '../tui-session.js';

/**
 * Runs the effects the reducer queued, once each, and feeds their results back to it as events:
 * a send's outcomes, the save's checkpoint (or its timeout), the analysis. Results that arrive
 * after the app is gone are dropped by React.
 */
export default function useUiEffects(
	effects: readonly Effect[],
	dispatch: Dispatch<UiEvent>,
	store: TuiStore,
	actions: SessionActions,
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
				case 'send':
					send(effect, dispatch, store, actions);
					break;
				case 'analyze':
					actions.analyze(effect.width).then(
						lines => dispatch({type: 'analysis-loaded', lines}),
						(error: unknown) => dispatch({type: 'analysis-failed', message: (error as Error).message}),
					);
					break;
			}
		}
	}, [effects, dispatch, store, actions, quit]);
}

function send(
	effect: Extract<Effect, {kind: 'send'}>,
	dispatch: Dispatch<UiEvent>,
	store: TuiStore,
	actions: SessionActions,
): void {
	// The targets as they are now: a rank gone since the confirm box opened is not signalled.
	const set = store.getSnapshot()?.ranks;
	const chosen = new Set(effect.pids);
	const signal = actions.signalOf(effect.action);
	const sentAt = Date.now();
	const results = set ? actions.send(signal, {...set, ranks: set.ranks.filter(r => chosen.has(r.pid))}) : [];
	const watch = actions.awaitCheckpoint;
	dispatch({type: 'sent', action: effect.action, signal, results, sentAt: localTime(sentAt), watching: watch !== null});
	if (!watch || !results.some(r => r.outcome === 'sent')) return;
	void watch(sentAt).then(checkpoint => {
		const seconds = Math.max(0, Math.round((Date.now() - sentAt) / 100) / 10);
		dispatch({
			type: 'save-finished',
			signal,
			checkpoint: checkpoint?.name ?? null,
			seconds,
			timeoutS: actions.timeoutS,
		});
	});
}
