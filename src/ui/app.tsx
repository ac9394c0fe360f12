import React, {useEffect, useMemo, useRef, useState} from 'react';
import {Box, Text, useApp, useInput} from 'ink';
import type {Checkpoint, RankProcess, RankSet} from '../core/types.js';
import type {HistoryPoint} from '../core/monitor.js';
import {SIGNAL_LEGEND} from '../commands/ranks-format.js';
import {localTime} from '../headless/format.js';
import {outcomeLine, previewLine} from '../ranks/preview.js';
import type {SendResult} from '../ranks/send.js';
import type {SignalName} from '../ranks/signals.js';
import useSnapshot, {type SnapshotStore} from './hooks/use-snapshot.js';
import useTerminalSize from './hooks/use-terminal-size.js';
import {barHints, helpEntries, resolveKey} from './keymap.js';
import {computeLayout, GAP} from './layout.js';
import {truncate} from './text.js';
import AlertsPane from './panes/AlertsPane.js';
import CheckpointsPane from './panes/CheckpointsPane.js';
import MemoryPane from './panes/MemoryPane.js';
import RanksPane from './panes/RanksPane.js';
import {type Effect, INITIAL_STATE, type SignalAction, step, targetPids, type UiState} from './state.js';
import Confirm from './widgets/Confirm.js';
import Help from './widgets/Help.js';
import KeyBar from './widgets/KeyBar.js';
import TextBox, {clampScroll} from './widgets/TextBox.js';

// The one stateful component: it reads snapshots, owns the UI state (state.ts) and the single
// input handler, runs the effects keys ask for, and lays the panes out as layout.ts says.

export interface TuiStore extends SnapshotStore {
	/** The newest `limit` values of a metric, oldest first (Monitor.getHistory). */
	getHistory(metric: string, limit: number): readonly HistoryPoint[];
}

/** What the app may do outside the screen; cli wiring gives the real ones (ranks/send.ts, the watcher). */
export interface TuiActions {
	/** The signal an action sends (settings: save → SIGUSR1, emergency → SIGTERM by default). */
	signalOf(action: SignalAction): SignalName;
	/** Sends through ranks/send.ts to the ranks of `targets` (a subset of the discovered set). */
	send(signal: SignalName, targets: RankSet): readonly SendResult[];
	/** Resolves with the first checkpoint completed after `sinceMs`, or null at the timeout; null = no run dir to watch. */
	readonly awaitCheckpoint: ((sinceMs: number) => Promise<Checkpoint | null>) | null;
	/** Seconds awaitCheckpoint waits. */
	readonly timeoutS: number;
	/** The analysis of this run's memory log as report lines `width` columns wide, or why there is none. */
	analyze(width: number): Promise<readonly string[]>;
	/** Why the memory log cannot be appended to right now (a full disk), or null; read at each render. */
	readonly logTrouble?: () => string | null;
}

export interface Props {
	readonly store: TuiStore;
	readonly actions: TuiActions;
	/** --readonly: no signal keys at all. */
	readonly readonly: boolean;
	readonly host: string;
	/** Sparkline points kept per metric. */
	readonly historyPoints?: number;
}

interface SaveStatus {
	readonly text: string;
	readonly level: 'ok' | 'warn' | 'critical';
}

interface TextView {
	readonly title: string;
	readonly lines: readonly string[];
}

const NO_RANKS: readonly RankProcess[] = [];

function signalWord(action: SignalAction, signal: SignalName): string {
	return `${signal} (${action === 'save' ? 'save' : 'emergency checkpoint'})`;
}

function outcomeTitle(action: SignalAction, signal: SignalName, results: readonly SendResult[]): string {
	const counts = new Map<string, number>();
	for (const r of results) counts.set(r.outcome, (counts.get(r.outcome) ?? 0) + 1);
	const parts = [...counts].map(([outcome, n]) => `${outcome} ${n}`);
	return `${signalWord(action, signal)}: ${parts.join(', ')}`;
}

export default function App({store, actions, readonly, host, historyPoints = 120}: Props) {
	const {exit} = useApp();
	const snapshot = useSnapshot(store);
	const {columns, rows} = useTerminalSize();
	const [ui, setUi] = useState<UiState>(INITIAL_STATE);
	const [saveStatus, setSaveStatus] = useState<SaveStatus | null>(null);
	const [result, setResult] = useState<TextView | null>(null);
	const [analysis, setAnalysis] = useState<TextView | null>(null);
	/** A short message on the key bar (a key that had nothing to act on), and until when. */
	const [notice, setNotice] = useState<{text: string; until: number} | null>(null);

	const ranks = snapshot?.ranks?.ranks ?? NO_RANKS;
	const rankPids = useMemo(() => ranks.map(r => r.pid), [ranks]);
	// The marks of ranks still there; the same Set while neither changes, so the memoised ranks pane
	// is not redrawn for nothing.
	const marked = useMemo(() => new Set(rankPids.filter(pid => ui.marked.has(pid))), [rankPids, ui.marked]);
	const history = useMemo(() => {
		const out: Record<string, number[]> = {};
		for (const id of Object.keys(snapshot?.metrics ?? {})) out[id] = store.getHistory(id, historyPoints).map(p => p.value);
		return out;
	}, [snapshot, store, historyPoints]);

	const layout = computeLayout(columns, rows, {
		gpus: snapshot?.gpu.status === 'ok' ? snapshot.gpu.gpus.length : 0,
		ranks: ranks.length,
		checkpoints: snapshot?.checkpoints?.checkpoints.length ?? 0,
		alerts: snapshot?.recentAlerts.length ?? 0,
		ranksAvailable: ranks.length > 0,
		checkpointsAvailable: snapshot?.checkpoints !== null && snapshot?.checkpoints !== undefined,
		checkpointStatus: saveStatus !== null,
	});

	// The input handler reads these, not its closure: Ink 6.8 re-subscribes useInput after each
	// render, and a key typed in between would otherwise see stale state (ink-notes.md §3).
	const latest = useRef({ui, snapshot, rankPids, analysis, layout});
	latest.current = {ui, snapshot, rankPids, analysis, layout};
	const mounted = useRef(true);
	useEffect(
		() => () => {
			mounted.current = false;
		},
		[],
	);

	const send = (action: SignalAction): void => {
		const {ui: now, snapshot: snap, rankPids: pids} = latest.current;
		const set = snap?.ranks;
		if (!set) return;
		const chosen = new Set(targetPids(now, pids));
		const signal = actions.signalOf(action);
		const sentAt = Date.now();
		const results = actions.send(signal, {...set, ranks: set.ranks.filter(r => chosen.has(r.pid))});
		setResult({title: outcomeTitle(action, signal, results), lines: results.map(outcomeLine)});
		if (!results.some(r => r.outcome === 'sent')) return;
		const await_ = actions.awaitCheckpoint;
		if (!await_) {
			setSaveStatus({text: `${signal} sent ${localTime(sentAt)}; no RUN_DIR given, so no checkpoint to wait for`, level: 'warn'});
			return;
		}
		setSaveStatus({text: `waiting for checkpoint… (${signal} sent ${localTime(sentAt)})`, level: 'ok'});
		void await_(sentAt).then(checkpoint => {
			if (!mounted.current) return;
			const seconds = Math.max(0, Math.round((Date.now() - sentAt) / 100) / 10);
			setSaveStatus(
				checkpoint
					? {text: `saved ${checkpoint.name} in ${seconds} s`, level: 'ok'}
					: {text: `no new checkpoint ${actions.timeoutS} s after ${signal}: check the job's log`, level: 'critical'},
			);
		});
	};

	const run = (effect: Effect): void => {
		switch (effect.kind) {
			case 'quit':
				exit();
				return;
			case 'send':
				send(effect.action);
				return;
			case 'analyze': {
				const width = Math.max(20, latest.current.layout.columns - 4);
				setAnalysis({title: "Analysis of this run's memory log", lines: ['reading the log…']});
				void actions.analyze(width).then(
					lines => mounted.current && setAnalysis({title: "Analysis of this run's memory log", lines}),
					(error: unknown) => mounted.current && setAnalysis({title: 'Analysis', lines: [`cannot analyse: ${(error as Error).message}`]}),
				);
				return;
			}
		}
	};

	useInput((input, key) => {
		const {ui: now, rankPids: pids, analysis: view, layout: lay} = latest.current;
		const action = resolveKey(input, key, now.mode, readonly);
		if (action === null) return;
		if ((action === 'save' || action === 'emergency') && pids.length === 0) {
			// Said, not silently ignored: the user pressed a key that matters.
			setNotice({text: 'no ranks found: nothing to signal (see RANKS; --pid or --match pick the job)', until: Date.now() + 5000});
			return;
		}
		const page = Math.max(1, lay.tooSmall ? 5 : now.mode === 'analysis' ? lay.rows - 6 : lay.ranks.height - 2);
		const next = step(now, action, {rankPids: pids, page});
		let state = next.state;
		// The analysis scrolls no further than its last page.
		if (state.mode === 'analysis' && view) state = {...state, scroll: clampScroll(state.scroll, view.lines.length, Math.max(1, lay.rows - 6))};
		latest.current = {...latest.current, ui: state};
		setUi(state);
		if (next.effect) run(next.effect);
	});

	if (layout.tooSmall) {
		return (
			<Text wrap="truncate-end">
				{`terminal ${columns}×${rows} is too small: traintop needs ${layout.minColumns}×${layout.minRows} (q quits)`}
			</Text>
		);
	}
	if (!snapshot) return <Text>traintop: first sample…</Text>;

	const cursor = Math.max(0, Math.min(ui.cursor, ranks.length - 1));
	// Overlays may use the whole screen but the key bar, within the rows − 1 rule.
	const overlayHeight = Math.max(4, rows - 1 - layout.keyBar.height);
	const overlayWidth = columns;

	let overlay: React.ReactNode = null;
	let hints = barHints(readonly);
	if (ui.mode === 'confirm' && ui.confirm) {
		const signal = actions.signalOf(ui.confirm.action);
		const chosen = new Set(targetPids(ui, rankPids));
		const targets = ranks.filter(r => chosen.has(r.pid));
		const which = marked.size > 0 ? `${targets.length} marked rank${targets.length === 1 ? '' : 's'}` : `all ${targets.length} rank${targets.length === 1 ? '' : 's'}`;
		overlay = (
			<Confirm
				title={`Send ${signalWord(ui.confirm.action, signal)} to ${which}?`}
				lines={targets.map(r => previewLine(r, signal, false, 'the TUI never forces; traintop signal --force does'))}
				confirmLabel={`Send ${signal}`}
				selected={ui.confirm.choice}
				danger={ui.confirm.action === 'emergency'}
				width={overlayWidth}
				height={overlayHeight}
			/>
		);
		hints = [
			{key: 'Enter', label: 'press highlighted'},
			{key: '←→', label: 'choose'},
			{key: 'y', label: 'send'},
			{key: 'Esc', label: 'cancel'},
		];
	} else if (ui.mode === 'result' && result) {
		overlay = <TextBox title={result.title} lines={result.lines} footer="Enter or Esc: close · the checkpoints pane follows the save" width={overlayWidth} height={overlayHeight} />;
		hints = [{key: 'Esc', label: 'close'}];
	} else if (ui.mode === 'help') {
		const notes = [SIGNAL_LEGEND, ...(readonly ? ['--readonly: s and e are off; no signal can be sent'] : [])];
		overlay = <Help entries={helpEntries(readonly)} notes={notes} title="traintop keys" width={overlayWidth} height={overlayHeight} />;
		hints = [{key: 'Esc', label: 'close'}];
	} else if (ui.mode === 'analysis' && analysis) {
		overlay = (
			<TextBox title={analysis.title} lines={analysis.lines} scroll={ui.scroll} footer="↑↓ PgUp PgDn: scroll · Esc: close" width={overlayWidth} height={overlayHeight} />
		);
		hints = [{key: 'Esc', label: 'close'}, {key: '↑↓', label: 'scroll'}];
	}
	if (readonly && ui.mode === 'main') hints = [{key: 'READ-ONLY', label: ''}, ...hints];
	if (notice && ui.mode === 'main' && Date.now() < notice.until) hints = [{key: '!', label: truncate(notice.text, Math.max(10, columns - 4))}, ...hints];
	// A failing memory log must not go unseen: it takes the front of the key bar until it recovers.
	const logTrouble = actions.logTrouble?.() ?? null;
	if (logTrouble) hints = [{key: 'LOG', label: truncate(logTrouble, Math.max(10, columns - 6))}, ...hints];

	const lower = [
		<CheckpointsPane key="checkpoints" index={snapshot.checkpoints} now={snapshot.time} status={saveStatus} {...layout.checkpoints} />,
		<AlertsPane key="alerts" alerts={snapshot.recentAlerts} now={snapshot.time} {...layout.alerts} />,
	];
	return (
		<Box flexDirection="column" width={columns}>
			{overlay ?? (
				<>
					<MemoryPane
						host={host}
						memory={snapshot.memory}
						memoryError={snapshot.memoryError}
						gpu={snapshot.gpu}
						metrics={snapshot.metrics}
						history={history}
						now={snapshot.time}
						{...layout.memory}
					/>
					<RanksPane ranks={snapshot.ranks} error={snapshot.ranksError} cursor={cursor} marked={marked} {...layout.ranks} />
					{layout.split ? <Box columnGap={GAP}>{lower}</Box> : lower}
				</>
			)}
			<KeyBar hints={hints} width={layout.keyBar.width} />
		</Box>
	);
}

