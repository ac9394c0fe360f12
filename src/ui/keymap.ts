// Every key of the TUI, in one table: the input handler resolves keys here, the help overlay and
// the key bar are drawn from it, and --readonly filters it. Nothing else decides what a key does.

/** What a key asks for; the app's reducer (state.ts) and its effects do it. */
export type Action =
	| 'quit'
	| 'up'
	| 'down'
	| 'page-up'
	| 'page-down'
	| 'mark'
	| 'save'
	| 'emergency'
	| 'analyze'
	| 'help'
	| 'close'
	| 'detail'
	| 'sort'
	| 'window'
	| 'choose-next'
	| 'confirm'
	| 'activate'
	| 'suspend';

/** Where the user is: each has its own keys. */
export type Mode = 'main' | 'confirm' | 'result' | 'help' | 'analysis' | 'detail';

/** The parts of Ink's `useInput` key that traintop reads. */
export interface KeyInfo {
	readonly upArrow?: boolean;
	readonly downArrow?: boolean;
	readonly leftArrow?: boolean;
	readonly rightArrow?: boolean;
	readonly pageUp?: boolean;
	readonly pageDown?: boolean;
	readonly return?: boolean;
	readonly escape?: boolean;
	readonly tab?: boolean;
	readonly ctrl?: boolean;
}

export interface Binding {
	readonly action: Action;
	readonly modes: readonly Mode[];
	/** As shown in help and the key bar. */
	readonly keys: string;
	readonly description: string;
	/**
	 * Its label on the key bar, in every mode it has, or per mode where the same key reads differently
	 * (Esc cancels a confirm box but closes the others); absent = not on the bar. The bar lists a
	 * mode's labelled bindings in table order, most important first: it drops from the end when narrow.
	 */
	readonly bar?: string | Readonly<Partial<Record<Mode, string>>>;
	/** The key as the bar shows it, when not the first of `keys`. */
	readonly barKey?: string;
	/** A signal action: hidden and disabled by --readonly. */
	readonly acts?: boolean;
	readonly matches: (input: string, key: KeyInfo) => boolean;
}

const is =
	(...chars: string[]) =>
	(input: string) =>
		chars.includes(input);
/** Esc, or n ("no") in a box: both close it without acting. */
const isEscape = (input: string, key: KeyInfo): boolean => key.escape === true || (input === 'n' && !key.ctrl);
const CLOSE_DESCRIPTION = 'close the box (in a confirm: cancel, nothing is sent)';

export const KEYMAP: readonly Binding[] = [
	// q quits from the main screen only: in a box it closes the box (a user leaving help with q must not lose the
	// app, and in `traintop demo` the job with it). Ctrl-C quits from any box but a confirm.
	{
		action: 'quit',
		modes: ['main'],
		keys: 'q',
		description: 'quit (the job is not touched); in a box: close it',
		bar: 'quit',
		matches: is('q'),
	},
	{
		action: 'quit',
		modes: ['main', 'help', 'analysis', 'result', 'detail'],
		keys: 'Ctrl-C',
		description: 'quit (the job is not touched)',
		matches: (input, key) => key.ctrl === true && input === 'c',
	},
	// Raw mode turns Ctrl-Z into a key: it does what the terminal would have done, in every mode (a box stays open).
	{
		action: 'suspend',
		modes: ['main', 'confirm', 'result', 'help', 'analysis', 'detail'],
		keys: 'Ctrl-Z',
		description: 'suspend to the shell (fg brings traintop back)',
		matches: (input, key) => key.ctrl === true && input === 'z',
	},
	{
		action: 'save',
		modes: ['main'],
		keys: 's',
		description:
			"save: send the save signal to the cursor's job: its marked ranks (all when none is marked), after a confirm",
		bar: 'save',
		acts: true,
		matches: is('s'),
	},
	{
		action: 'emergency',
		modes: ['main'],
		keys: 'e',
		description:
			"emergency checkpoint: send the emergency signal to the cursor's job (save and exit for requeue), after a confirm",
		bar: 'emergency',
		acts: true,
		matches: is('e'),
	},
	{
		action: 'mark',
		modes: ['main'],
		keys: 'space',
		description: 'mark or unmark the rank under the cursor as a target (a rank of another job replaces the marks)',
		bar: 'mark',
		matches: is(' '),
	},
	{
		action: 'close',
		modes: ['help', 'analysis', 'result', 'detail'],
		keys: 'Esc  q',
		description: CLOSE_DESCRIPTION,
		bar: 'close',
		matches: (input, key) => isEscape(input, key) || input === 'q',
	},
	{
		action: 'up',
		modes: ['main', 'analysis', 'detail', 'help'],
		keys: '↑  k',
		description: 'move up',
		matches: (input, key) => key.upArrow === true || input === 'k',
	},
	{
		action: 'down',
		modes: ['main', 'analysis', 'detail', 'help'],
		keys: '↓  j',
		description: 'move down',
		bar: {main: 'move', analysis: 'scroll', detail: 'scroll', help: 'scroll'},
		barKey: '↑↓',
		matches: (input, key) => key.downArrow === true || input === 'j',
	},
	{
		action: 'page-up',
		modes: ['main', 'analysis', 'detail', 'help'],
		keys: 'PgUp',
		description: 'page up',
		matches: (_, key) => key.pageUp === true,
	},
	{
		action: 'page-down',
		modes: ['main', 'analysis', 'detail', 'help'],
		keys: 'PgDn',
		description: 'page down',
		matches: (_, key) => key.pageDown === true,
	},
	{
		action: 'analyze',
		modes: ['main'],
		keys: 'a',
		description: "analysis of this run's memory log",
		bar: 'analyze',
		matches: is('a'),
	},
	{action: 'help', modes: ['main'], keys: '?', description: 'this help', bar: 'help', matches: is('?', 'h')},
	{
		action: 'sort',
		modes: ['main'],
		keys: 'o',
		description: 'order the ranks within each job: by rank, RSS, CPU, GPU memory (largest first), in turn',
		matches: is('o'),
	},
	{
		action: 'window',
		modes: ['main'],
		keys: 'w',
		description: 'history charts over the last 5 minutes, the last hour, the whole run, in turn',
		matches: is('w'),
	},
	// After help on the bar (it drops from the end when narrow). Not a signal action: --readonly keeps it, since it only reads /proc.
	{
		action: 'detail',
		modes: ['main'],
		keys: 'Enter',
		description:
			'the detail of the rank under the cursor: its whole command line, cwd, launch variables, signals, workers, events',
		bar: 'detail',
		matches: (_, key) => key.return === true,
	},
	{
		action: 'close',
		modes: ['result', 'help'],
		keys: 'Enter',
		description: 'close the box',
		matches: (_, key) => key.return === true,
	},
	{
		action: 'activate',
		modes: ['confirm'],
		keys: 'Enter',
		description: 'in a confirm: press the highlighted button (Cancel first)',
		bar: 'press highlighted',
		matches: (_, key) => key.return === true,
	},
	{
		action: 'choose-next',
		modes: ['confirm'],
		keys: '←  →  Tab',
		description: 'in a confirm: move between Cancel and Send',
		bar: 'choose',
		barKey: '←→',
		matches: (_, key) => key.leftArrow === true || key.rightArrow === true || key.tab === true,
	},
	{action: 'confirm', modes: ['confirm'], keys: 'y', description: 'in a confirm: send', bar: 'send', matches: is('y')},
	// The same key and words as Esc in the other boxes (help lists it once); last on a confirm's bar.
	{action: 'close', modes: ['confirm'], keys: 'Esc', description: CLOSE_DESCRIPTION, bar: 'cancel', matches: isEscape},
	// Ctrl-C in a confirm cancels it rather than quitting: a user mashing Ctrl-C must not lose the app mid-decision.
	{
		action: 'close',
		modes: ['confirm'],
		keys: 'Ctrl-C',
		description: 'in a confirm: cancel',
		matches: (input, key) => key.ctrl === true && input === 'c',
	},
];

/** The action for a key press in a mode, or null. Signal actions do nothing with --readonly. */
export function resolveKey(input: string, key: KeyInfo, mode: Mode, readonly: boolean): Action | null {
	for (const binding of KEYMAP) {
		if (!binding.modes.includes(mode)) continue;
		if (readonly && binding.acts) continue;
		if (binding.matches(input, key)) return binding.action;
	}
	return null;
}

/** The help overlay's rows, without what --readonly removes. */
export function helpEntries(readonly: boolean): {keys: string; description: string}[] {
	const seen = new Set<string>();
	const rows: {keys: string; description: string}[] = [];
	for (const binding of KEYMAP) {
		if (readonly && binding.acts) continue;
		const id = `${binding.keys}|${binding.description}`;
		if (seen.has(id)) continue;
		seen.add(id);
		rows.push({keys: binding.keys, description: binding.description});
	}
	return rows;
}

function barLabel(binding: Binding, mode: Mode): string | undefined {
	if (!binding.modes.includes(mode)) return undefined;
	return typeof binding.bar === 'string' ? binding.bar : binding.bar?.[mode];
}

/** A mode's key-bar hints, most important first (the bar drops from the end when narrow). */
export function barHints(mode: Mode, readonly: boolean): {key: string; label: string}[] {
	const hints: {key: string; label: string}[] = [];
	for (const binding of KEYMAP) {
		const label = barLabel(binding, mode);
		if (label === undefined || (readonly && binding.acts)) continue;
		hints.push({key: binding.barKey ?? binding.keys.split('  ')[0]!, label});
	}
	return hints;
}
