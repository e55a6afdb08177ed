/* A sha256sum-like example of lanesum's C ABI: `example [-a ALG] FILE...` prints one line
 * per file, through the file pipeline; `example -a ALG -s STRING` hashes a string. */
#include <stdio.h>
#include <string.h>

#include "lanesum.h"

static int print_line(void *user, const LanesumFileResult *r) {
    (void)user;
    if (r->os_error != 0) {
        fprintf(stderr, "example: %.*s: %s\n", (int)r->path_len, (const char *)r->path, r->error);
        return 0;
    }
    for (size_t i = 0; i < r->digests_len; i++) printf("%02x", r->digests[i]);
    printf("  %.*s\n", (int)r->path_len, (const char *)r->path);
    return 0;
}

int main(int argc, char **argv) {
    if (lanesum_abi_version() != LANESUM_ABI_VERSION) {
        fprintf(stderr, "example: built for ABI %d, linked with %u\n", LANESUM_ABI_VERSION,
                lanesum_abi_version());
        return 2;
    }
    const char *name = "sha256";
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "-a") == 0) {
        name = argv[2];
        first = 3;
    }
    LanesumAlgorithm alg;
    if (lanesum_algorithm(name, &alg) != LANESUM_OK) {
        fprintf(stderr, "example: %s\n", lanesum_last_error());
        return 2;
    }
    if (argc == first + 2 && strcmp(argv[first], "-s") == 0) {
        uint8_t d[64];
        size_t n;
        if (lanesum_hash(alg, (const uint8_t *)argv[first + 1], strlen(argv[first + 1]), d,
                         sizeof d, &n) != LANESUM_OK) {
            fprintf(stderr, "example: %s\n", lanesum_last_error());
            return 1;
        }
        for (size_t i = 0; i < n; i++) printf("%02x", d[i]);
        printf("  \"%s\"\n", argv[first + 1]);
        return 0;
    }
    if (argc <= first) {
        fprintf(stderr, "usage: example [-a ALG] FILE... | example [-a ALG] -s STRING\n");
        return 2;
    }
    lanesum_install_sigbus_handler();
    LanesumStatus s = lanesum_hash_files((const char *const *)argv + first, (size_t)(argc - first),
                                         &alg, 1, NULL, print_line, NULL);
    if (s != LANESUM_OK) {
        fprintf(stderr, "example: %s\n", lanesum_last_error());
        return 1;
    }
    return 0;
}
