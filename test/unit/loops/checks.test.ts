// Which commands count as checks (tests, builds, type checks, linters).
import { expect, it } from "vitest";
import { isCheckCommand, mayChangeFiles } from "../../../src/loops/checks.ts";

it("recognises test runs, builds, type checks and linters, also behind wrappers and pipes", () => {
	for (const command of [
		"npx vitest run src/a.test.ts 2>&1 | tail -20",
		"npm test",
		"npm run build 2>&1 | tail -5",
		"pnpm run test:unit",
		"yarn lint",
		"git stash && npm run typecheck; git stash pop",
		"node_modules/.bin/tsc -p tsconfig.json --noEmit",
		"timeout 120 cargo test --workspace",
		"go test ./...",
		"python -m pytest -q tests/",
		"node --test test/",
		"CI=1 time make",
		"make check",
		"pnpm exec eslint src",
	]) {
		expect(isCheckCommand(command), command).toBe(true);
	}
});

it("leaves other commands alone, even when they mention a check tool", () => {
	for (const command of [
		"cat vitest.config.ts",
		'grep -rn "vitest" package.json',
		"npm install",
		"npm run dev",
		"git commit -m 'make tests pass'",
		"echo make sure",
		"ls node_modules/.bin",
		"python script.py",
		"make install",
		"cargo run",
	]) {
		expect(isCheckCommand(command), command).toBe(false);
	}
});

it("tells commands that may change the workspace from those that only look", () => {
	for (const command of [
		"cat > src/a.ts << 'EOF'",
		"echo 'x' >> notes.md",
		"sed -i 's/a/b/' src/a.ts",
		"git checkout HEAD -- src/a.ts",
		"git stash --include-untracked && npx vitest run",
		"npm install left-pad",
		"cp a.ts b.ts",
		"python gen.py > src/generated.ts",
	]) {
		expect(mayChangeFiles(command), command).toBe(true);
	}
	for (const command of [
		"npx vitest run 2>&1 | tail -20",
		"git diff --no-index /dev/null a.ts > /tmp/diff.txt",
		"npx tsc --noEmit 2>/dev/null | head",
		"git status --short",
		"git add -- src/a.ts && git diff --cached",
		"grep -rn foo src",
	]) {
		expect(mayChangeFiles(command), command).toBe(false);
	}
});
