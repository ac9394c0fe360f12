import {createContext, useContext} from 'react';

// Colour on or off for every widget and pane. Ink colours through chalk, and chalk 5 honours
// FORCE_COLOR and --no-color but NOT the NO_COLOR convention (no-color.org), so traintop checks
// NO_COLOR itself and simply passes no colour to <Text> when it is set.

/** no-color.org: NO_COLOR present and not empty turns colour off. */
export function colorAllowed(env: Readonly<Record<string, string | undefined>>): boolean {
	const noColor = env.NO_COLOR;
	return noColor === undefined || noColor === '';
}

/**
 * Whether widgets may colour their text. The default follows this process's NO_COLOR; the app can
 * override it with a Provider (a future `--no-color` flag, tests).
 */
export const ColorContext = createContext<boolean>(colorAllowed(process.env));

/** A colour name when colour is allowed, else undefined (which <Text color> treats as "no colour"). */
export type Paint = (color: string) => string | undefined;

export function usePaint(): Paint {
	const allowed = useContext(ColorContext);
	return color => (allowed ? color : undefined);
}
