/** The `kubescribe` (and `kubescribe help`) text: the commands, as kubectl lists its own. */
export const commandsUsage = `kubescribe records Kubernetes clusters in Git.

Commands:
  forward   Watch a cluster's resources and post their changes to kubescribe
  version   Print the version of kubescribe
  help      Show this help, or a command's: kubescribe help forward

Use "kubescribe <command> --help" for more about a command.
The service itself runs with "npm start" (the embedded host) or on Azure Functions; see README.md.
`;

/** The `kubescribe forward --help` text. */
export const forwardUsage = `Usage: kubescribe forward --config <file> [--once]

Watches the configured Kubernetes resource types and posts their changes to kubescribe:
a complete snapshot per type first, then live events in batches. Resumes from the cursor
file after a restart; on 410 Gone takes a fresh snapshot.

Options:
  --config <file>  the forwarder configuration (YAML or JSON); default $KUBESCRIBE_FORWARDER_CONFIG
  --once           post one snapshot of each type, save the cursors, and exit (first import, CronJob);
                   gives up (exit 2) after 6 failed attempts in a row
  -h, --help       show this help

Cluster access follows kubeconfig rules (cluster.inCluster, cluster.kubeconfig, $KUBECONFIG,
~/.kube/config). The kubescribe token is read from the variable named by kubescribe.tokenEnv.
See docs/forwarder.md.
`;

/** The `kubescribe version --help` text. */
export const versionUsage = `Usage: kubescribe version

Prints the version of kubescribe (package.json's), as "kubescribe <version>".
`;
