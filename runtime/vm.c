/* Memory for the runtime's tables, straight from mmap: the hooks may not call malloc, and a pool that
 * is reserved once and committed as it grows never moves, so a writer reading another thread's
 * tables can never see them vanish under it. */
#include "spyrt.h"

#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page_round(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (n + pg - 1) & ~(pg - 1);
}

void *spy_map(size_t bytes)
{
	void *p = mmap(NULL, page_round(bytes), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void spy_unmap(void *p, size_t bytes)
{
	if (p)
		munmap(p, page_round(bytes));
}

int spy_vm_reserve(struct spy_vm *vm, size_t bytes)
{
	/* PROT_NONE costs address space only, even under strict overcommit */
	void *p =
		mmap(NULL, page_round(bytes), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	vm->committed = 0;
	if (p == MAP_FAILED) {
		vm->base = NULL;
		vm->reserved = 0;
		return -1;
	}
	vm->base = p;
	vm->reserved = page_round(bytes);
	return 0;
}

int spy_vm_commit(struct spy_vm *vm, size_t bytes)
{
	bytes = page_round(bytes);
	if (bytes <= vm->committed)
		return 0;
	if (bytes > vm->reserved)
		return -1;
	if (mprotect((char *)vm->base + vm->committed, bytes - vm->committed, PROT_READ | PROT_WRITE))
		return -1;
	vm->committed = bytes;
	return 0;
}

void spy_vm_release(struct spy_vm *vm)
{
	if (vm->base)
		munmap(vm->base, vm->reserved);
	vm->base = NULL;
	vm->reserved = vm->committed = 0;
}
