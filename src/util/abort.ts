// Waiting on an abort signal, for racing a promise that does not take one against a deadline.

/** Resolves (with undefined) once the signal aborts. */
export function whenAborted(signal: AbortSignal): Promise<undefined> {
	return new Promise((resolve) => {
		if (signal.aborted) resolve(undefined);
		else signal.addEventListener("abort", () => resolve(undefined), { once: true });
	});
}
