import type React from 'react';
import {useMemo} from 'react';
import {Box, Text} from 'ink';
import type {HistoryPoint} from '../core/metric-history.js';
import type {Job} from '../core/types.js';
import {boxTextWidth, confirmRows, helpRows} from './box-text.js';
import {keyBarHints} from './hints.js';
import {windowStart} from './history/window.js';
import useSnapshot from './hooks/use-snapshot.js';
import useTerminalSize from './hooks/use-terminal-size.js';
import useValue from './hooks/use-value.js';
import {type KeyContextSlot, useKeyContext} from './hooks/use-keys.js';
import {computeLayout, tooSmallFor} from './layout.js';
import {helpEntries} from './keymap.js';
import Overlay, {helpNotes, openConfirmText} from './overlay.js';
import {maxBoxSize} from './overlay-box.js';
import {alertEntries, alertsScrollMax} from './panes/alert-window.js';
import {ranksOf} from './panes/job-rows.js';
import Screen from './screen.js';
import type {ChartHistory, ScreenData} from './screen-data.js';
import {sortRankSet} from './rank-sort.js';
import {cursorIndex, type KeyContext, type UiState} from './state.js';
import type {TuiSession} from './tui-session.js';

// A node's full view: the one-node screen, or a node opened from the list of nodes (under a line that says which
// node and how fresh). It reads the node's snapshots and draws the screen layout.ts lays out for the app's one state
// (state.ts), to which its one input handler sends the keys.

export interface Props {
	readonly session: TuiSession;
	readonly ui: UiState;
	/** Where this view says what a key needs to know of it (the app's one key handler asks). */
	readonly keys: KeyContextSlot;
	/** Sparkline points kept per metric. */
	readonly historyPoints?: number;
	/** Under the list of nodes (traintop --hosts): which node this is and how fresh, on the line above the screen. */
	readonly banner?: React.ReactNode;
}

const NO_JOBS: readonly Job[] = [];

export default function NodeView({session, ui, keys, historyPoints = 120, banner}: Props) {
	const snapshot = useSnapshot(session.monitor);
	const logTrouble = useValue(session.recorder.trouble);
	const terminal = useTerminalSize();
	const {columns} = terminal;
	// The banner of a node's view takes the top line: the screen is laid out in the rows below it.
	const fleet = banner !== undefined;
	const rows = terminal.rows - (fleet ? 1 : 0);

	// The ranks in the order the user chose (o); the snapshot the panes get carries them so.
	const sortedRanks = useMemo(
		() => (snapshot?.ranks ? sortRankSet(snapshot.ranks, ui.sort, snapshot.jobMemory) : null),
		[snapshot?.ranks, ui.sort, snapshot?.jobMemory],
	);
	const shown = useMemo(
		() => (snapshot && sortedRanks !== snapshot.ranks ? {...snapshot, ranks: sortedRanks} : snapshot),
		[snapshot, sortedRanks],
	);
	const jobs = sortedRanks?.jobs ?? NO_JOBS;
	// Every rank, job by job: the rows the cursor moves over (job headers are not rows).
	const ranks = useMemo(() => ranksOf(jobs), [jobs]);
	// The marks of ranks still there; the same Set while neither changes, so the memoised ranks pane
	// is not redrawn for nothing.
	const marked = useMemo(() => new Set(ranks.filter(r => ui.marked.has(r.pid)).map(r => r.pid)), [ranks, ui.marked]);
	const history = useMemo(() => {
		const out: Record<string, number[]> = {};
		for (const id of Object.keys(snapshot?.metrics ?? {}))
			out[id] = session.monitor.getHistory(id, historyPoints).map(p => p.value);
		return out;
	}, [snapshot, session.monitor, historyPoints]);
	// The history charts' window, read from the Monitor once per snapshot or window change.
	const charts = useMemo((): ChartHistory | undefined => {
		if (!snapshot) return undefined;
		const to = snapshot.time;
		const from = windowStart(ui.window, to, session.monitor.startedAt);
		const series: Record<string, readonly HistoryPoint[]> = {};
		// No chart is wider than the terminal: two dot columns a cell are all the points one can draw.
		for (const id of Object.keys(snapshot.metrics)) series[id] = session.monitor.getSeries(id, from, to, 2 * columns);
		return {window: ui.window, from, to, series, markers: session.monitor.getMarkers(from)};
	}, [snapshot, session.monitor, ui.window, columns]);
	const cursor = cursorIndex(ui, ranks);
	// The alerts pane's entries (not the saves): how far `[` scrolls it.
	const recentAlerts = snapshot?.recentAlerts;
	const recentEvents = snapshot?.recentEvents;
	const alertList = useMemo(
		() => (recentAlerts && recentEvents ? alertEntries(recentAlerts, recentEvents) : []),
		[recentAlerts, recentEvents],
	);
	const save = session.actions.signalOf('save');
	const emergency = session.actions.signalOf('emergency');
	const actionSignals = useMemo(() => [save, emergency], [save, emergency]);
	const data: ScreenData | null = shown && {
		snapshot: shown,
		sort: ui.sort,
		host: session.host,
		history,
		charts,
		cursor,
		marked,
		saveStatus: ui.saveStatus,
		alertsScroll: ui.alertsScroll,
		actionSignals,
	};
	const layout = tooSmallFor(columns, rows) ?? (data ? computeLayout(columns, rows, data) : null);
	// The biggest a box over the panes may be (overlay-box.ts): the analysis is laid out for its text width
	// and scrolls by its text rows (the border, title and footer off).
	const biggestBox = maxBoxSize(columns, rows);
	const textWidth = boxTextWidth(columns, rows);
	// The confirm box's rows, as it wraps them: how far ↑↓ scroll it.
	const confirmSignal = ui.confirm ? session.actions.signalOf(ui.confirm.action) : null;
	const confirmWords = openConfirmText(ui, confirmSignal, {jobs, runDir: session.actions.runDir, nodes: [], now: 0});
	const confirmLayout = confirmWords && confirmRows(confirmWords.title, confirmWords.lines, columns, rows);
	const confirmScroll = confirmLayout ? {lines: confirmLayout.body.length, rows: confirmLayout.shown} : undefined;

	// Keys are resolved in the reducer, against the state they arrive in; the app's one handler asks for this
	// context as the key comes (hooks/use-keys.ts).
	useKeyContext(
		keys,
		(): KeyContext => ({
			ranks,
			page: Math.max(1, layout && !layout.tooSmall ? (layout.boxes.ranks?.height ?? 7) - 2 : 5),
			analysisRows: Math.max(1, biggestBox.height - 4),
			helpLines: helpRows(helpEntries(session.readonly, fleet), helpNotes(session.readonly), textWidth).length,
			confirm: confirmScroll,
			alertsScrollMax: alertsScrollMax(
				alertList,
				layout && !layout.tooSmall ? (layout.boxes.alerts?.height ?? 1) - 1 : 0,
			),
			width: Math.max(20, textWidth),
			readonly: session.readonly,
			fleet,
			signals: {save: session.actions.signalOf('save'), emergency: session.actions.signalOf('emergency')},
			now: Date.now(),
		}),
	);

	const framed = (screen: React.ReactNode) =>
		fleet ? (
			<Box flexDirection="column">
				{banner}
				{screen}
			</Box>
		) : (
			screen
		);
	if (layout?.tooSmall) {
		return framed(
			<Text wrap="truncate-end">{`terminal ${columns}×${terminal.rows} is too small: traintop needs ${layout.minColumns}×${layout.minRows + (fleet ? 1 : 0)} (q quits)`}</Text>,
		);
	}
	if (!layout || !data) return framed(<Text>traintop: first sample…</Text>);
	const notice = ui.notice && Date.now() < ui.notice.until ? ui.notice.text : null;
	const hints = keyBarHints({mode: ui.mode, readonly: session.readonly, notice, logTrouble, columns, fleet});
	const overlay =
		ui.mode === 'main' ? null : (
			<Overlay
				ui={ui}
				confirm={confirmWords}
				signal={confirmSignal}
				help={{
					entries: helpEntries(session.readonly, fleet),
					notes: helpNotes(session.readonly),
					title: 'traintop keys',
				}}
				width={columns}
				height={rows}
			/>
		);
	return framed(<Screen layout={layout} data={data} overlay={overlay} hints={hints} />);
}
