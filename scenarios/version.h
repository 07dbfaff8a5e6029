/* scenarios/version.h — hcpsim's release, and the git description of the build (the Makefile
 * passes HCPSIM_GIT for main.c; a build outside a git checkout says so). */
#ifndef HCPSIM_VERSION_H
#define HCPSIM_VERSION_H
#define HCPSIM_RELEASE "0.1.0"
#ifndef HCPSIM_GIT
#define HCPSIM_GIT "no git description"
#endif
#endif
