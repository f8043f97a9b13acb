"""What the harness observes from the host: the effects recorder (its watcher and its pure record), inotify, fanotify, the decoy and its watcher, the mount gate that holds a call's opens."""
