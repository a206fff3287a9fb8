/* SPDX-License-Identifier: MIT */
#ifndef PMUK_CORE_WPRP_H
#define PMUK_CORE_WPRP_H

/* Windows 10 1903+ raw profile-source registration, generated from a pmukit event:
 * a WPRP fragment
 *   <MicroArchitecturalConfig>
 *     <ProfileSource Architecture="INTEL" Event="0x3C" Unit="0x00"
 *                    ExtendedBits="01000100" Name="..." Interval="..."/>
 *   </MicroArchitecturalConfig>
 * and its registry form HKLM\SYSTEM\CurrentControlSet\Control\WMI\ProfileSource\
 * <Model>\<Name> with the DWORD values Event, Unit, Interval.
 *
 * Intel layout of the event select (perf config / IA32_PERFEVTSELx):
 *   event 0-7, umask 8-15, edge 18, any 21, inv 23, cmask 24-31.
 * ExtendedBits is eight characters, four two-digit fields in the documented order
 * "CMask CMaskInvert AnyThread EdgeDetect": the WPT example ExtendedBits="01000100"
 * on Event 0x48 Unit 0x01 is L1D_PEND_MISS.PENDING_CYCLES_ANY (CMask 1, AnyThread 1).
 * The flags are 00/01; CMask is written as two hex digits (the field is 8 bits). The
 * example does not tell hex from decimal for CMask >= 10, so such values carry a
 * warning in the output (pmuk_wprp_source.warning). */

#include <stdint.h>
#include <stdio.h>

struct pmuk_wprp_source {
	char name[64];       /* ProfileSource Name: letters, digits, '_' */
	char arch[8];        /* "INTEL" */
	uint8_t event, unit, cmask;
	uint8_t inv, any, edge;
	uint32_t interval;   /* events between samples */
	char warning[160];   /* "" or why the registration may not mean what was asked */
};

#define PMUK_WPRP_DEFAULT_INTERVAL 100000u

/* From a pmukit event spec (one event, no modifiers other than ignored ones):
 *   rNNNN                                   raw Intel encoding (hex)
 *   intel:event=0x3c,umask=0x00[,cmask=N][,inv][,edge][,any][,name=X][,interval=N]
 *                                           explicit, needs no sysfs
 *   cpu/event=..,umask=..,cmask=..,inv,edge,any/, libpfm4 names, ...
 *                                           through pmu_event_parse (needs the cpu PMU)
 * PMU_EPARSE / PMU_EINVAL with a sentence (a generic event such as "cycles" is
 * EINVAL naming its curated source, TotalCycles); PMU_ENOTSUP for encodings a
 * ProfileSource cannot carry (bits outside the seven fields, a non-Intel core PMU).
 * The USR/OS/INT/EN bits (16, 17, 20, 22) of a raw value are ignored: the HAL sets them. */
int pmuk_wprp_from_spec(const char *spec, struct pmuk_wprp_source *out);
/* From a raw Intel config value; name may be NULL (a name is made from the fields). */
int pmuk_wprp_from_config(uint64_t config, const char *name, uint32_t interval,
			  struct pmuk_wprp_source *out);
/* The eight ExtendedBits characters + NUL. */
void pmuk_wprp_extended_bits(const struct pmuk_wprp_source *s, char out[9]);
/* The WPRP fragment. */
int pmuk_wprp_write_xml(FILE *f, const struct pmuk_wprp_source *s);
/* The registry form as a .reg file; model names the <Model> key (NULL: a placeholder
 * the user must replace, said in a comment). */
int pmuk_wprp_write_registry(FILE *f, const struct pmuk_wprp_source *s, const char *model);

#endif
