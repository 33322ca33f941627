// The file names a message mentions: `quoted` tokens and bare paths that look like files (a folder, or a known
// extension: `event.args` is code, `index.ts` a file). Pure.

/** The most file names one claim carries. */
export const MAX_FILES = 40;

const FILE_TOKEN = /`([^`\s]{2,200})`|(?<![\w/.-])((?:[\w.-]+\/)*[\w-]+\.[A-Za-z][\w]{0,6})(?![\w/])/g;

/** Extensions a bare name (no folder) must have to count as a file: `event.args` is code, `index.ts` a file. */
const FILE_EXTENSIONS = new Set(
	(
		"ts tsx js jsx mjs cjs mts cts json jsonc json5 md mdx txt rst yml yaml toml " +
		"ini cfg conf env lock py pyi ipynb rb go rs java kt kts scala swift c h cc cpp " +
		"hpp cs fs ex exs erl hs ml php pl lua r sql sh bash zsh fish ps1 bat html htm " +
		"css scss sass less vue svelte astro xml svg png jpg gif csv tsv proto graphql " +
		"gql tf dockerfile gradle properties"
	).split(" "),
);

export function looksLikeFile(token: string): boolean {
	if (/^https?:|^\d|[*?{}<>|$()]|^\.\.?$/.test(token)) return false;
	const base = token.replace(/^.*\//, "");
	const ext = /\.([A-Za-z][\w]{0,4})$/.exec(base)?.[1]?.toLowerCase();
	if (!ext || /^\d+\.\d+/.test(base)) return false;
	return token.includes("/")
		? !/^(?:com|org|io|net|dev)$/.test(ext)
		: FILE_EXTENSIONS.has(ext) || /^\.[\w-]+$/.test(base);
}

export function filesIn(text: string): string[] {
	const out = new Set<string>();
	for (const m of text.matchAll(FILE_TOKEN)) {
		const token = (m[1] ?? m[2] ?? "").replace(/^\.\//, "").replace(/[),.:;]+$/, "");
		if (looksLikeFile(token)) out.add(token);
		if (out.size >= MAX_FILES) break;
	}
	return [...out];
}
