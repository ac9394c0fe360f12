// A terminal screen captured with `tmux capture-pane -p -e` (text with SGR colour sequences) as
// an SVG image: one <text> per run of same-styled characters on a monospace grid. Only what
// tmux emits is understood: SGR 0/1/2/7/22/27/39/49, 30–37/90–97 (and 40–47/100–107),
// 38;5;n / 48;5;n and 38;2;r;g;b / 48;2;r;g;b; any other escape sequence is dropped.

const BASE = ['#1e1e1e', '#e06c75', '#98c379', '#e5c07b', '#61afef', '#c678dd', '#56b6c2', '#dcdfe4'];
const BRIGHT = ['#5c6370', '#ff7b86', '#b5e890', '#ffd68a', '#7cc4ff', '#de9bff', '#7ddcea', '#ffffff'];
const FG = '#dcdfe4';
const BG = '#1e1e1e';

function color256(n) {
	if (n < 8) return BASE[n];
	if (n < 16) return BRIGHT[n - 8];
	if (n < 232) {
		const c = n - 16;
		const level = v => (v === 0 ? 0 : 55 + v * 40);
		const hex = v => level(v).toString(16).padStart(2, '0');
		return `#${hex(Math.floor(c / 36))}${hex(Math.floor(c / 6) % 6)}${hex(c % 6)}`;
	}
	const g = (8 + (n - 232) * 10).toString(16).padStart(2, '0');
	return `#${g}${g}${g}`;
}

/** Applies one SGR parameter list to a style. */
function applySgr(style, params) {
	const p = params.length === 0 ? [0] : params;
	for (let i = 0; i < p.length; i++) {
		const n = p[i];
		if (n === 0) Object.assign(style, {fg: null, bg: null, bold: false, dim: false, inverse: false});
		else if (n === 1) style.bold = true;
		else if (n === 2) style.dim = true;
		else if (n === 7) style.inverse = true;
		else if (n === 22) style.bold = style.dim = false;
		else if (n === 27) style.inverse = false;
		else if (n >= 30 && n <= 37) style.fg = BASE[n - 30];
		else if (n >= 90 && n <= 97) style.fg = BRIGHT[n - 90];
		else if (n === 39) style.fg = null;
		else if (n >= 40 && n <= 47) style.bg = BASE[n - 40];
		else if (n >= 100 && n <= 107) style.bg = BRIGHT[n - 100];
		else if (n === 49) style.bg = null;
		else if ((n === 38 || n === 48) && p[i + 1] === 5) {
			style[n === 38 ? 'fg' : 'bg'] = color256(p[i + 2] ?? 0);
			i += 2;
		} else if ((n === 38 || n === 48) && p[i + 1] === 2) {
			const hex = v =>
				Number(v ?? 0)
					.toString(16)
					.padStart(2, '0');
			style[n === 38 ? 'fg' : 'bg'] = `#${hex(p[i + 2])}${hex(p[i + 3])}${hex(p[i + 4])}`;
			i += 4;
		}
	}
}

/** Screen lines → rows of styled runs [{text, fg, bg, bold, dim}]. */
export function parseAnsi(text) {
	const style = {fg: null, bg: null, bold: false, dim: false, inverse: false};
	return text.split('\n').map(line => {
		const runs = [];
		let current = '';
		const flush = () => {
			if (current === '') return;
			const fg = style.inverse ? (style.bg ?? BG) : (style.fg ?? FG);
			const bg = style.inverse ? (style.fg ?? FG) : style.bg;
			runs.push({text: current, fg, bg, bold: style.bold, dim: style.dim});
			current = '';
		};
		// eslint-disable-next-line no-control-regex
		// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC is what an ANSI sequence starts with.
		const re = /\u001B\[([\d;]*)([A-Za-z])|\u001B[()][A-Za-z0-9]|\u001B./g;
		let last = 0;
		for (const m of line.matchAll(re)) {
			current += line.slice(last, m.index);
			last = m.index + m[0].length;
			if (m[2] === 'm') {
				flush();
				applySgr(style, m[1] === '' ? [] : m[1].split(';').map(Number));
			}
		}
		current += line.slice(last);
		flush();
		return runs;
	});
}

const escapeXml = s => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The SVG of a captured screen `columns` × `rows` cells. */
export function ansiToSvg(text, {columns, rows, title = 'traintop'}) {
	const cw = 8.4;
	const ch = 17;
	const pad = 12;
	const width = Math.ceil(columns * cw + 2 * pad);
	const height = Math.ceil(rows * ch + 2 * pad);
	const out = [
		`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(title)}">`,
		`<rect width="100%" height="100%" rx="6" fill="${BG}"/>`,
		`<g font-family="'DejaVu Sans Mono', Menlo, Consolas, monospace" font-size="14" xml:space="preserve">`,
	];
	parseAnsi(text)
		.slice(0, rows)
		.forEach((runs, row) => {
			let col = 0;
			for (const run of runs) {
				const chars = [...run.text];
				const x = (pad + col * cw).toFixed(1);
				const y = pad + row * ch;
				if (run.bg)
					out.push(
						`<rect x="${x}" y="${y}" width="${(chars.length * cw).toFixed(1)}" height="${ch}" fill="${run.bg}"/>`,
					);
				if (run.text.trim() !== '') {
					const attrs = [
						`x="${x}"`,
						`y="${y + 13}"`,
						`fill="${run.fg}"`,
						`textLength="${(chars.length * cw).toFixed(1)}"`,
						'lengthAdjust="spacingAndGlyphs"',
					];
					if (run.bold) attrs.push('font-weight="bold"');
					if (run.dim) attrs.push('opacity="0.6"');
					out.push(`<text ${attrs.join(' ')}>${escapeXml(run.text)}</text>`);
				}
				col += chars.length;
			}
		});
	out.push('</g>', '</svg>');
	return `${out.join('\n')}\n`;
}
