/* A program that has rights its user has not (setuid, setgid, file capabilities: AT_SECURE) writes its
 * profile with its user's rights, as a file the user could have made: on the writing thread alone, the
 * file system ids are the caller's and no capability is in effect while the file is made, then both
 * are given back. Otherwise SPYRT_OUT, or a profile in a root-only directory, would let any user
 * replace or create root's files (issue 24). Raw system calls: setfsuid and capset act on the calling
 * thread only, and so nothing changes for the program's other threads. */
#include "spyrt.h"

#include <errno.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* the 32-bit ids' calls where the old 16-bit ones kept the plain names */
#ifdef SYS_setfsuid32
#define SYS_FSUID SYS_setfsuid32
#define SYS_FSGID SYS_setfsgid32
#else
#define SYS_FSUID SYS_setfsuid
#define SYS_FSGID SYS_setfsgid
#endif

_Static_assert(sizeof(((struct spy_rights *)0)->caps) == 2 * sizeof(struct __user_cap_data_struct),
	       "capget's data in spy_rights");

static uid_t fsuid(uid_t to)
{
	return (uid_t)syscall(SYS_FSUID, to);
}

static gid_t fsgid(gid_t to)
{
	return (gid_t)syscall(SYS_FSGID, to);
}

int spy_as_caller(struct spy_rights *r)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct none[2];
	int saved;

	r->on = 0;
	if (!spy_caller.secure)
		return 0;
	if (syscall(SYS_capget, &h, r->caps))
		return -1;
	r->fsgid = fsgid(spy_caller.gid);
	r->fsuid = fsuid(spy_caller.uid);
	r->on = 1;
	/* -1 is no id: the call only says what the id is now */
	if (fsuid((uid_t)-1) != spy_caller.uid || fsgid((gid_t)-1) != spy_caller.gid) {
		errno = EPERM;
		goto undo;
	}
	memcpy(none, r->caps, sizeof(none));
	none[0].effective = none[1].effective = 0;
	if (syscall(SYS_capset, &h, none))
		goto undo;
	return 0;
undo:
	saved = errno;
	spy_as_self(r);
	errno = saved;
	return -1;
}

void spy_as_self(const struct spy_rights *r)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };

	if (!r->on)
		return;
	fsuid(r->fsuid);
	fsgid(r->fsgid);
	/* the effective set as it was (going back to fsuid 0 raised only the file system ones) */
	syscall(SYS_capset, &h, r->caps);
}
