import type {Settings} from '../config/schema.js';
import type {NoticeSink, SinkTrouble} from './notice.js';

// The sinks the settings ask for, each made by its own constructor (notify/command-sink.ts, webhook-sink.ts,
// bell-sink.ts, reached through the table sink-factories.ts holds): the command and the webhook wherever traintop
// runs, the bell only where a person looks at the screen (the TUI).

export interface SinkOptions {
	/** --notify-timeout: how long the command may run, and each webhook attempt may take. */
	readonly timeoutS: number;
	readonly trouble: SinkTrouble;
}

/** The sinks' constructors, in the shape they are exported. */
export interface SinkFactories {
	readonly command: (command: string, options: SinkOptions) => NoticeSink;
	readonly webhook: (url: string, options: SinkOptions) => NoticeSink;
	readonly bell: (terminal: NodeJS.WritableStream) => NoticeSink;
}

export interface SinkPlace {
	/** The TUI: a person at the terminal, where the bell is heard. */
	readonly tui: boolean;
	/** The TUI's terminal, for the bell. */
	readonly terminal: NodeJS.WritableStream;
	readonly trouble: SinkTrouble;
}

/** Whether the settings ask for any notice here (without one, nothing is built and nothing follows the session). */
export function wantsNotices(settings: Settings, tui: boolean): boolean {
	return settings.notifyCommand !== null || settings.webhook !== null || (tui && settings.bell);
}

export function buildSinks(settings: Settings, place: SinkPlace, factories: SinkFactories): NoticeSink[] {
	const options: SinkOptions = {timeoutS: settings.notifyTimeout, trouble: place.trouble};
	const sinks: NoticeSink[] = [];
	if (settings.notifyCommand !== null) sinks.push(factories.command(settings.notifyCommand, options));
	if (settings.webhook !== null) sinks.push(factories.webhook(settings.webhook, options));
	if (place.tui && settings.bell) sinks.push(factories.bell(place.terminal));
	return sinks;
}
