import {useStdout} from 'ink';
import {useEffect, useState} from 'react';

export interface TerminalSize {
	readonly columns: number;
	readonly rows: number;
}

// Ink 6.8 has no useWindowSize (it came with 7.0). A stream without a size (a test's fake stdout
// has columns but no rows) falls back to 80×24, the size of a fresh terminal.
const read = (stdout: NodeJS.WriteStream): TerminalSize => ({columns: stdout.columns || 80, rows: stdout.rows || 24});

/** The terminal's size, followed live through 'resize'. */
export default function useTerminalSize(): TerminalSize {
	const {stdout} = useStdout();
	const [size, setSize] = useState(() => read(stdout));
	useEffect(() => {
		const onResize = () => {
			const next = read(stdout);
			setSize(previous => (previous.columns === next.columns && previous.rows === next.rows ? previous : next));
		};
		stdout.on('resize', onResize);
		onResize();
		return () => {
			stdout.off('resize', onResize);
		};
	}, [stdout]);
	return size;
}
