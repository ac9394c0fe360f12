import type {OptionSpec} from './option-spec.js';
import {DEFAULT_SETTINGS as d} from './schema.js';
import {DEFAULT_NOTIFY_EVENTS, NOTIFY_EVENT_NAMES} from '../notify/event-names.js';

// The options that reach the user who is not looking: notifications (a command, a webhook, the bell) and the
// Prometheus exporter. Settings too (config-file keys); the monitor's only: an agent's node is notified for and
// exported by the traintop that watches it.

const WATCHERS = ['monitor', 'demo'] as const;

export const NOTIFY_OPTIONS: readonly OptionSpec[] = [
	{
		name: 'notifyCommand',
		usage: '--notify-command CMD',
		kind: 'string',
		setting: 'notifyCommand',
		defaultText: 'none',
		description:
			'run this shell command for each notice, the notice as one JSON line on stdin (notify-send, mail, a script)',
		commands: WATCHERS,
	},
	{
		name: 'webhook',
		usage: '--webhook URL',
		kind: 'string',
		setting: 'webhook',
		defaultText: 'none',
		description: 'POST each notice as JSON, with a `text` field that Slack, Mattermost and Discord show as is',
		commands: WATCHERS,
	},
	{
		name: 'bell',
		usage: '--bell',
		kind: 'boolean',
		setting: 'bell',
		description: "the TUI rings the terminal's bell on a CRIT notice",
		commands: WATCHERS,
	},
	{
		name: 'notifyEvents',
		usage: '--notify-events LIST',
		kind: 'string',
		setting: 'notifyEvents',
		defaultText: DEFAULT_NOTIFY_EVENTS.join(', '),
		description: `which events notify, a comma list of: ${NOTIFY_EVENT_NAMES.join(', ')}`,
		commands: WATCHERS,
	},
	{
		name: 'notifyCooldown',
		usage: '--notify-cooldown S',
		kind: 'number',
		setting: 'notifyCooldown',
		defaultText: `${d.notifyCooldown}`,
		description:
			'seconds an episode must stay clear before its "resolved" is sent (a return inside it is the same episode)',
		commands: WATCHERS,
	},
	{
		name: 'notifyTimeout',
		usage: '--notify-timeout S',
		kind: 'number',
		setting: 'notifyTimeout',
		defaultText: `${d.notifyTimeout}`,
		description:
			'seconds the notify command may run, and each webhook attempt may take, before it is killed or given up',
		commands: WATCHERS,
	},
	{
		name: 'listen',
		usage: '--listen HOST:PORT',
		kind: 'string',
		setting: 'listen',
		defaultText: 'off',
		description: 'serve Prometheus metrics on http://HOST:PORT/metrics (read-only; a port alone binds 127.0.0.1)',
		commands: WATCHERS,
	},
];
