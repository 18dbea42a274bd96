// The app's entry point (package.json "main"): importing a module registers its functions.
import './telemetry';
import './healthz';
import './dashboard';
import './metrics';
import './driver-keeper';
import './eventhub-feed';
import './http/routes';
import './activities/publish';
import './activities/pull-request';
import './activities/read-remote';
import './activities/project-status';
import '../orchestrators/branch-entity';
import '../orchestrators/branch-driver';
import '../orchestrators/withdraw-save';
