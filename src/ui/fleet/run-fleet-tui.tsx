import type {AgentsSession as FleetSession} from '../../session/session.js';
import {nodeActions} from '../../fleet/node-actions.js';
import App from '../app.js';
import {runOnTerminal, type TerminalOptions} from '../run-tui.js';
import {fleetJobActions} from './fleet-job-actions.js';
import {fleetTuiSession} from './fleet-tui-session.js';

/**
 * The many-node screen on the terminal, as runTui opens the one-node screen (the alternate screen, given back on
 * every way out), until q or `signal`; the fleet starts once the screen is up. Closing the fleet session is the
 * caller's.
 */
export async function runFleetTui(session: FleetSession, options: TerminalOptions): Promise<void> {
	const tui = fleetTuiSession(session.fleet, {
		settings: session.settings,
		recorders: session.recorders,
		actions: (node, logPath) => nodeActions({fleet: session.fleet, node, settings: session.settings, logPath}),
		jobActions: fleetJobActions(session.fleet, session.settings),
		declared: session.declared,
		start: () => session.start(),
	});
	try {
		await runOnTerminal(<App fleet={tui} />, options, () => tui.start());
	} finally {
		tui.close();
	}
}
