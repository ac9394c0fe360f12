import {z} from 'zod';
import {isNotifyEventName, NOTIFY_EVENT_NAMES, type NotifyEventName} from '../notify/event-names.js';

// The notification and exporter settings whose values need more than a type: the webhook's URL, the list of events
// (a comma list on the command line, a list or a comma list in a config file) and the exporter's address.

export const webhookSchema = z.string({error: 'must be an http:// or https:// URL'}).refine(text => {
	try {
		const url = new URL(text);
		return url.protocol === 'http:' || url.protocol === 'https:';
	} catch {
		return false;
	}
}, 'must be an http:// or https:// URL');

function splitNames(value: string | readonly string[]): string[] {
	const list = typeof value === 'string' ? value.split(',') : [...value];
	return list.map(name => name.trim()).filter(name => name !== '');
}

export const notifyEventsSchema = z
	.union([z.string(), z.array(z.string())], {error: `must be a list of: ${NOTIFY_EVENT_NAMES.join(', ')}`})
	.transform((value, context): NotifyEventName[] => {
		const names = splitNames(value);
		const unknown = names.find(name => !isNotifyEventName(name));
		if (unknown !== undefined || names.length === 0) {
			context.addIssue({
				code: 'custom',
				message:
					unknown === undefined
						? `must name at least one of: ${NOTIFY_EVENT_NAMES.join(', ')}`
						: `names "${unknown}", which is not one of: ${NOTIFY_EVENT_NAMES.join(', ')}`,
			});
			return z.NEVER;
		}
		return names as NotifyEventName[];
	});

/** `PORT`, `:PORT`, `HOST:PORT` or `[IPv6]:PORT`; the host is 127.0.0.1 unless one is given. */
function parseListen(text: string): {host: string; port: number} | null {
	const match = /^(?:(\[[0-9A-Fa-f:.]+\]|[^\s:[\]]+)?:)?(\d{1,5})$/.exec(text.trim());
	if (!match) return null;
	const port = Number(match[2]);
	if (port > 65_535) return null;
	const host = match[1] === undefined ? '127.0.0.1' : match[1].replace(/^\[(.*)\]$/, '$1');
	return {host, port};
}

export const listenSchema = z
	.string({error: 'must be HOST:PORT or a port (127.0.0.1:9101, 9101)'})
	.transform((text, context) => {
		const parsed = parseListen(text);
		if (parsed === null) {
			context.addIssue({code: 'custom', message: 'must be HOST:PORT or a port from 0 to 65535 (127.0.0.1:9101, 9101)'});
			return z.NEVER;
		}
		return parsed;
	});
