/* The commands of the tool, one row each: main() dispatches on them, and
 * --help, the man page and the completions print them. */
#include "cli/cli.h"

#include <stddef.h>

#define BATCH_EXIT "0 all files done, 1 some inputs failed, 2 usage error"

const cli_command cli_commands[] = {
    {"denoise", CMD_DENOISE, job_denoise_command, "filter files and folders of JPEG/PNG images",
     "INPUT... -o OUT [options]",
     "  Filters files and folders (recursively) into the folder OUT, mirroring the\n"
     "  tree; with one input, OUT may name a file (.png or .jpg) or be - (standard\n"
     "  output), and INPUT may be - (one image from standard input).\n",
     BATCH_EXIT},
    {"noise", CMD_NOISE, job_noise_command, "write noisy copies (salt-and-pepper, Gaussian)",
     "INPUT... -o OUT (--salt-pepper D | --gaussian SIGMA) [--seed N]",
     "  Noisy copies for experiments, written as PNG unless asked: JPEG's compression\n"
     "  would change the noise.  Each file gets its own seed from its path.\n",
     BATCH_EXIT},
    {"metrics", CMD_METRICS, cli_metrics, "PSNR, SSIM and MSE of two images; the noise of one",
     "A B [--json [FILE]]   or   IMAGE [--json [FILE]]",
     "  PSNR, SSIM and MSE of B against A.  With one image, its estimated noise:\n"
     "  the Gaussian level, the Poisson-Gaussian model (variance = a * value + b)\n"
     "  and the salt-and-pepper density.\n",
     "0 compared or estimated, 1 an image could not be read or the two differ in size, 2 usage error"},
    {"info", CMD_INFO, cli_info, "version, backends and devices", "[--json [FILE]]",
     "  Version, backends, CUDA devices and the operations.\n", NULL},
    {"bench", CMD_BENCH, cli_bench, "benchmark filters, kernel sizes and variants (and NPP)",
     "[options]",
     "  Times filters, sizes, kernel sizes and variants (and NPP where linked) on a\n"
     "  photo tiled to each size, each result checked against the CPU reference.\n",
     "0 every cell measured and correct, 1 a cell failed or differed, 2 usage error"},
    {"stream", CMD_STREAM, cli_stream, "filter a video stream (Y4M or raw frames) between pipes",
     "[-i IN.y4m|-] [-o OUT.y4m|-] [filter options]",
     "  Filters a video stream frame by frame: YUV4MPEG2 (ffmpeg -f yuv4mpegpipe,\n"
     "  GStreamer y4menc) or raw frames through pipes; frames are counted from 0.\n",
     "0 the whole stream filtered, 1 a bad or truncated frame, a failed write or a\n"
     "consumer that quit early (frames before it are written), 2 usage error"},
    {"report", CMD_REPORT, job_report_command,
     "merge the --json reports of shards (report merge A.json B.json ...)",
     "merge REPORT.json... [-o ALL.json]",
     "  Checks that the --json reports of shards cover every file once with the same\n"
     "  settings, prints the combined summary and writes the merged report.\n",
     "0 every file once and none failed; 1 a file missing, counted twice or failed,\n"
     "a shard missing, or settings that differ; 2 usage error"},
    {"calibrate", CMD_CALIBRATE, cli_calibrate,
     "measure the GPU variants here and write the profile `auto` follows",
     "[--device N] [--quick] [-o FILE]",
     "  Times every GPU variant and block shape of median, conv and rank-1 conv\n"
     "  (gauss, box) over sizes 1280x720 to 3840x2160, grey and RGB, k = 3 to 31\n"
     "  (under a minute on a desktop GPU), and writes the fastest of each as the\n"
     "  profile `auto` follows on this device in this power mode.\n",
     "0 written, 1 no GPU or a measurement failed, 2 usage error"},
    {"serve", CMD_SERVE, cli_serve,
     "run command after command in one process, the GPU kept ready (JSON lines)",
     "< REQUESTS   (one JSON line a request; answers on standard output)",
     "  Reads one request a line, a JSON array of a command's arguments:\n"
     "    [\"denoise\", \"photos/\", \"-o\", \"clean/\", \"-k\", \"5\"]\n"
     "  or an object {\"args\": [...], \"stdout\": FILE, \"stderr\": FILE} that sends\n"
     "  what the command prints to those files; answers each with one line,\n"
     "    {\"exit\": 0, \"seconds\": 0.41}\n"
     "  (\"error\" too when the request itself is wrong).  A command's own output\n"
     "  goes to serve's standard error unless the request names files; its\n"
     "  standard input is empty.  CUDA, the GPU's JPEG engine and its encoders\n"
     "  start once, as serve starts (about 1 s on a server GPU), and stay until\n"
     "  the input ends: batch after batch runs warm.  The Python package's\n"
     "  jetfilter.Worker speaks this.\n",
     "0 the input ended (each request's status is in its answer), 2 usage error"},
};
const int cli_command_count = (int)(sizeof cli_commands / sizeof cli_commands[0]);

const cli_command *cli_command_of(int bit)
{
    int i;
    for (i = 0; i < cli_command_count; i++)
        if (cli_commands[i].bit == bit)
            return &cli_commands[i];
    return NULL;
}
