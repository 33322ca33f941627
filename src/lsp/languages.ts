// The files the language server checks, and the language id each is opened with.
const LANGUAGES: Record<string, string> = {
	".ts": "typescript",
	".mts": "typescript",
	".cts": "typescript",
	".tsx": "typescriptreact",
	".js": "javascript",
	".mjs": "javascript",
	".cjs": "javascript",
	".jsx": "javascriptreact",
};

export function languageOf(path: string): string | undefined {
	const dot = path.lastIndexOf(".");
	return dot < 0 ? undefined : LANGUAGES[path.slice(dot).toLowerCase()];
}
