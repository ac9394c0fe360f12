import type {Settings} from '../config/schema.js';
import type {Session} from '../session/types.js';
import {buildSinks, type SinkFactories, wantsNotices} from './build-sinks.js';
import type {SinkTrouble} from './notice.js';
import {Notifier} from './notifier.js';
import {noticeSetupLine} from '../format/notice-setup.js';

// The notifier as the monitor command opens it: after the session, before it starts, and only when a sink is asked
// for (none: nothing follows the session, nothing costs). A sink's trouble is said on stderr at once headless; the
// TUI keeps it and says it once the screen is given back, where it can be read.

export interface NoticeWiring {
	readonly tui: boolean;
	/** The TUI's terminal (the bell rings there). */
	readonly stdout: NodeJS.WritableStream;
	readonly stderr: NodeJS.WritableStream;
	/** The sinks' constructors (sink-factories.ts). */
	readonly factories: SinkFactories;
}

export interface OpenNotices {
	/** Ends the notices (the last go out within --notify-timeout), then says the TUI's kept trouble. */
	close(): Promise<void>;
}

export function openNotifier(session: Session, settings: Settings, wiring: NoticeWiring): OpenNotices {
	const {tui, stderr, factories} = wiring;
	if (!wantsNotices(settings, tui)) return {close: async () => undefined};
	const kept: string[] = [];
	const trouble: SinkTrouble = (sink, message) => {
		// The sinks' own messages name them already ("command `…` …", "webhook https://host/… …").
		const line = `traintop: ${message.startsWith(`${sink} `) ? '' : `${sink}: `}${message}\n`;
		if (tui) kept.push(line);
		else stderr.write(line);
	};
	// A batch job's log says where its notices go (headless asks for a command or a webhook; the bell needs no words).
	if (!tui) stderr.write(`traintop: ${noticeSetupLine(settings)}\n`);
	const sinks = buildSinks(settings, {tui, terminal: wiring.stdout, trouble}, factories);
	const notifier = sinks.length === 0 ? null : new Notifier(session, {settings, sinks, trouble});
	return {
		async close() {
			await notifier?.close();
			for (const line of kept.splice(0)) stderr.write(line);
		},
	};
}
