// Whether a process lives, for the records other processes leave (a background runner, a live
// session's entry, a watch lock): the one check both children and the fleet use.

/** Whether a process with this id exists (one of another user's counts; a zombie until it is reaped). */
export function processAlive(pid: number | undefined): boolean {
	if (!pid || !Number.isInteger(pid) || pid <= 0) return false;
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}
