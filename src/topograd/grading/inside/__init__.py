"""What runs inside the grader's sandbox, beside the learner's code: the child process that
loads the learner's file and the probes it measures. It imports the standard library only (a
test checks), since neither topograd nor anything else of the grader's is visible in there;
the grader outside it judges what the probes measured (``grading.objectives``)."""
