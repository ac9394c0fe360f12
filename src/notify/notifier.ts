import {LEVEL_RANK} from '../core/level.js';
import type {Settings} from '../config/schema.js';
import type {Snapshot} from '../core/types.js';
import {JobLevelEvents} from '../session/job-level.js';
import type {Session} from '../session/types.js';
import {Episodes} from './episodes.js';
import {followFleet} from './fleet-source.js';
import type {Notice, NoticeSink, SinkTrouble} from './notice.js';
import {snapshotSignals} from './notice-source.js';
import {notifySelection} from './selection.js';
import type {NoticeSignal} from './signal.js';

// Follows a session, one node or many, and hands each notice to every sink. It rides on the session's snapshot
// listener, so it must cost little and never throw there: each snapshot's signals go through the episodes, the
// cool-downs are checked at every snapshot of any node (they come every --interval), and a sink's send only queues.

export interface NotifierOptions {
	readonly settings: Pick<Settings, 'notifyEvents' | 'notifyCooldown' | 'warnMargin'>;
	readonly sinks: readonly NoticeSink[];
	/** Trouble of the notifier's own (a sink whose send threw, a bug): said once per sink. */
	readonly trouble: SinkTrouble;
	/** The clock the cool-down is counted on; Date.now unless a test moves its own. */
	readonly now?: () => number;
}

export class Notifier {
	readonly #sinks: readonly NoticeSink[];
	readonly #trouble: SinkTrouble;
	readonly #now: () => number;
	readonly #episodes: Episodes;
	/** Each node's previous snapshot: the readiness and jobs it had (one per node, so bounded by the nodes). */
	readonly #previous = new Map<string, Snapshot>();
	readonly #said = new Set<string>();
	readonly #offs: (() => void)[] = [];
	#closed: Promise<void> | null = null;

	constructor(session: Session, options: NotifierOptions) {
		this.#sinks = options.sinks;
		this.#trouble = options.trouble;
		this.#now = options.now ?? Date.now;
		this.#episodes = new Episodes(options.settings.notifyCooldown);
		const selection = notifySelection(options.settings.notifyEvents);
		const many = session.kind === 'agents';
		const jobLevel = new JobLevelEvents();
		const context = {
			many,
			selection,
			warnMargin: options.settings.warnMargin,
			firstOfJob: jobLevel.first.bind(jobLevel),
		};
		this.#offs.push(
			session.onSnapshot((node, snapshot) =>
				this.#guarded(() => {
					const previous = this.#previous.get(node) ?? null;
					this.#previous.set(node, snapshot);
					this.#take(snapshotSignals(previous, snapshot, {...context, node}));
				}),
			),
		);
		if (session.kind === 'agents')
			this.#offs.push(followFleet(session, selection, signals => this.#guarded(() => this.#take(signals))));
	}

	/** Stops following the session and closes the sinks, which end what is in flight within their timeout. */
	close(): Promise<void> {
		if (this.#closed === null) {
			for (const off of this.#offs.splice(0)) off();
			this.#closed = Promise.all(this.#sinks.map(sink => sink.close().catch(() => undefined))).then(() => undefined);
		}
		return this.#closed;
	}

	#take(signals: readonly NoticeSignal[]): void {
		const now = this.#now();
		for (const signal of worstToldFirst(signals))
			for (const notice of this.#episodes.feed(signal, now)) this.#send(notice);
		for (const notice of this.#episodes.tick(now)) this.#send(notice);
	}

	#send(notice: Notice): void {
		for (const sink of this.#sinks) {
			try {
				sink.send(notice);
			} catch (error) {
				this.#once(sink.name, `its send failed: ${(error as Error).message}`);
			}
		}
	}

	/** The session's listener must never see a throw: a notifier's bug costs notices, not the monitor. */
	#guarded(work: () => void): void {
		try {
			work();
		} catch (error) {
			this.#once('notifier', `notices stopped being judged: ${(error as Error).message}`);
		}
	}

	#once(source: string, message: string): void {
		if (this.#said.has(source)) return;
		this.#said.add(source);
		this.#trouble(source, message);
	}
}

/**
 * Things told once and seen in the same snapshot fold into one notice, the first: the worst of them goes first. A rank
 * the OOM killer ended (CRIT) and the rank its launcher then stopped (WARN) leave one scan together; the notice is
 * the death, not what followed it. The other signals keep their order (a raise before its own clear).
 */
function worstToldFirst(signals: readonly NoticeSignal[]): NoticeSignal[] {
	const once = signals.filter(signal => signal.kind === 'once');
	if (once.length < 2) return [...signals];
	const rest = signals.filter(signal => signal.kind !== 'once');
	return [...rest, ...once.sort((a, b) => LEVEL_RANK[b.level] - LEVEL_RANK[a.level])];
}
