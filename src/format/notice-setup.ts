import type {Settings} from '../config/schema.js';
import {redactUrl} from '../notify/redact-url.js';
import {userCommand} from './command-line.js';

/**
 * What the headless view says at its start when notices are on, so a batch log shows where they go:
 * `notices (crit, rank-exited, …; resolved after 300 s clear) to command `notify.sh`, webhook https://hooks.slack.com/…`.
 * The webhook by its host only: its URL is a secret.
 */
export function noticeSetupLine(settings: Settings): string {
	const to: string[] = [];
	if (settings.notifyCommand !== null) to.push(`command \`${userCommand(settings.notifyCommand)}\``);
	if (settings.webhook !== null) to.push(`webhook ${redactUrl(settings.webhook)}`);
	return `notices (${settings.notifyEvents.join(', ')}; resolved after ${settings.notifyCooldown} s clear) to ${to.join(', ')}`;
}
