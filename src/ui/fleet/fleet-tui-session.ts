import type {DeclaredFinding} from '../../cluster/declared-vs-seen.js';
import type {Settings} from '../../config/schema.js';
import type {JobEvent} from '../../core/types.js';
import type {SessionActions} from '../../session/actions.js';
import type {FleetView} from '../../fleet/fleet.js';
import type {ObservableValue} from '../hooks/use-value.js';
import type {TuiSession} from '../tui-session.js';
import type {FleetJobActions} from './fleet-job-actions.js';
import {type FleetSource, FleetViewStore} from './fleet-view-store.js';
import {FleetHistories} from './node-history.js';

// What the many-node screen reads: the fleet's view, and for each node the session its own full view (the one-node
// App) runs on, built from that node's snapshots. Built once, before the fleet starts, so that every node's history
// is kept from its first snapshot.

export interface FleetTuiSession {
	readonly view: ObservableValue<FleetView>;
	/** --readonly: no signal from any node's view. */
	readonly readonly: boolean;
	/** s and e on the nodes: one job on every node it runs on, through each node's agent. */
	readonly jobActions: FleetJobActions;
	/** A node's own view: the one-node TUI's session on that node's snapshots; its signals go through its agent. */
	node(name: string): TuiSession;
	/** Where each node differs from its cluster.yaml declaration, judged as its snapshots came. */
	readonly declared: DeclaredFindings;
	/** Starts the fleet (the screen starts it once it is up). */
	start(): void;
	/** Stops following the fleet (the fleet itself is the fleet session's to close). */
	close(): void;
}

/** A node's memory log, as the fleet session opens one per node. */
interface NodeRecorder {
	readonly trouble: ObservableValue<string | null>;
	readonly path: string | null;
}

export interface FleetTuiOptions {
	readonly settings: Settings;
	/** Each node's memory log (fleet-session.ts), by node name; a node heard of later gets one when it speaks. */
	readonly recorders: ReadonlyMap<string, NodeRecorder>;
	/** What a node's view may do, through that node's agent (fleet/node-actions.ts). */
	readonly actions: (node: string, logPath: string | null) => SessionActions;
	/** What the list of nodes may do to a job across its nodes (fleet-job-actions.ts). */
	readonly jobActions: FleetJobActions;
	/** The fleet session's DeclaredWatch (cluster/declared-watch.ts); none without --cluster. */
	readonly declared?: DeclaredFindings;
	readonly start: () => void;
}

/** A node's current findings, and the findings seen and cleared as events for the alerts pane. */
interface DeclaredFindings {
	of(node: string): readonly DeclaredFinding[];
	events(): readonly JobEvent[];
}

const NOTHING_DECLARED: DeclaredFindings = {of: () => [], events: () => []};

const NO_TROUBLE: ObservableValue<string | null> = {get: () => null, subscribe: () => () => undefined};

export function fleetTuiSession(source: FleetSource, options: FleetTuiOptions): FleetTuiSession {
	const histories = new FleetHistories(source);
	const view = new FleetViewStore(source);
	// With whether it had its memory log: a node heard of only now (srun over a job's nodes) gets its log with its
	// first snapshot, and its session is made again then, to show that log's trouble.
	const sessions = new Map<string, {readonly session: TuiSession; readonly logged: boolean}>();
	const make = (name: string): TuiSession => {
		const recorder = options.recorders.get(name);
		return {
			host: name,
			readonly: options.settings.readonly,
			monitor: histories.of(name),
			recorder: {trouble: recorder?.trouble ?? NO_TROUBLE},
			actions: options.actions(name, recorder?.path ?? null),
			// The fleet feeds it: nothing of its own to start.
			start: () => undefined,
		};
	};
	return {
		view,
		readonly: options.settings.readonly,
		jobActions: options.jobActions,
		declared: options.declared ?? NOTHING_DECLARED,
		node: name => {
			const known = sessions.get(name);
			const logged = options.recorders.has(name);
			if (known && (known.logged || !logged)) return known.session;
			const session = make(name);
			sessions.set(name, {session, logged});
			return session;
		},
		start: options.start,
		close: () => {
			view.close();
			histories.close();
		},
	};
}
