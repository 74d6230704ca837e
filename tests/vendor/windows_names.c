/* SPDX-License-Identifier: MIT */
/* A Windows user's own names must survive the header: each is declared
 * BEFORE the include and used AFTER it. Every name here is one that
 * <windows.h> (mingw-w64) takes: a macro (min, max, near, far, interface,
 * ERROR, ...) or a typedef (BOOL, DWORD, POINT, ...). `small` is a macro
 * only where rpcndr.h comes in (MSVC's <windows.h> without
 * WIN32_LEAN_AND_MEAN). Compiled, not run, by windows_names.sh:
 * x86_64-w64-mingw32-gcc -std=c99 -Wall -Wextra -Werror -c. */
#include <stdint.h>

/* Enumerators: windows.h turns them into other numbers. */
enum status { OK, ERROR };                 /* wingdi.h: ERROR 0          */
enum mode { ABSOLUTE, RELATIVE };          /* wingdi.h: 1, 2             */
enum action { IGNORE, DELETE };            /* winbase.h, winnt.h         */
enum blend { OPAQUE, TRANSPARENT, DIFFERENCE }; /* wingdi.h: 2, 1, 11    */
enum lang { LANG_C, pascal };              /* windef.h: __stdcall        */

/* Types: windows.h has typedefs of these names, of other types. */
typedef unsigned char BOOL;
typedef uint32_t DWORD;
typedef struct { double x, y; } POINT;
typedef struct { int w, h; } SIZE;
typedef struct { POINT lo, hi; } RECT;
typedef struct user_handle *HANDLE;

/* Variables and members: macros in windows.h (most expand to nothing). */
static int near = 1, far = 2, NEAR = 3, FAR = 4;
static int interface = 5;                  /* combaseapi.h: struct       */
static int small = 6, hyper = 7;           /* rpcndr.h: char, __int64    */
static int IN = 8, OUT = 9, OPTIONAL = 10, CONST = 11, VOID = 12;
static int CALLBACK = 13, INFINITE = 14;
struct ops { int (*min)(int, int); int (*max)(int, int); }; /* windef.h  */

/* Functions: function-like macros in windows.h. */
static int Yield(void) { return 15; }      /* winbase.h: Yield() empty   */
static unsigned RGB(unsigned r, unsigned g, unsigned b) { return r << 16 | g << 8 | b; }

#include "tsc_timer.h"

#if defined(min) || defined(max)
#error "tsc_timer.h defines min/max (<windows.h> without NOMINMAX)"
#endif
#if defined(near) || defined(far) || defined(NEAR) || defined(FAR)
#error "tsc_timer.h defines near/far/NEAR/FAR (<windows.h>)"
#endif
#if defined(interface) || defined(small) || defined(hyper)
#error "tsc_timer.h defines interface/small/hyper (<windows.h>)"
#endif
#if defined(IN) || defined(OUT) || defined(OPTIONAL) || defined(CONST) || defined(VOID)
#error "tsc_timer.h defines IN/OUT/OPTIONAL/CONST/VOID (<windows.h>)"
#endif
#if defined(ERROR) || defined(ABSOLUTE) || defined(RELATIVE) || defined(IGNORE) || \
    defined(DELETE) || defined(OPAQUE) || defined(TRANSPARENT) || defined(DIFFERENCE)
#error "tsc_timer.h defines ERROR/ABSOLUTE/RELATIVE/IGNORE/DELETE/OPAQUE/... (<windows.h>)"
#endif
#if defined(pascal) || defined(CALLBACK) || defined(INFINITE) || defined(Yield) || defined(RGB)
#error "tsc_timer.h defines pascal/CALLBACK/INFINITE/Yield/RGB (<windows.h>)"
#endif

/* The enumerators kept their values (a negative array size otherwise). */
extern char windows_names_values[(ERROR == 1 && RELATIVE == 1 && DELETE == 1 &&
                                  TRANSPARENT == 1 && DIFFERENCE == 2 && pascal == 1 &&
                                  OK == 0) ? 1 : -1];

static int imin(int a, int b) { return a < b ? a : b; }
static int imax(int a, int b) { return a > b ? a : b; }

int windows_names_use(void);
int windows_names_use(void)
{
    struct ops o;
    enum status s = ERROR;
    enum mode m = RELATIVE;
    enum action a = IGNORE;
    enum blend b = OPAQUE;
    enum lang l = LANG_C;
    BOOL ok = 1;
    DWORD dw = 3;
    POINT p = {0.5, 1.5};
    SIZE sz = {4, 5};
    RECT r;
    HANDLE h = NULL;
    uint64_t t0 = tsc_ticks_before();
    o.min = imin;
    o.max = imax;
    r.lo = p;
    r.hi = p;
    return near + far + NEAR + FAR + interface + small + hyper + IN + OUT + OPTIONAL + CONST +
           VOID + CALLBACK + INFINITE + o.min(1, 2) + o.max(1, 2) + Yield() +
           (int)RGB(1, 2, 3) + (int)s + (int)m + (int)a + (int)b + (int)l + ok + (int)dw +
           (int)(r.hi.x + r.lo.y) + sz.w + sz.h + (h == NULL) + (int)(tsc_ticks_after() - t0);
}
