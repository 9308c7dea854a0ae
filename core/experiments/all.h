// Factories of every experiment (one per file); experiment_registry() lists them in this order.
#pragma once
#include "experiments/experiment.h"

namespace attnlab {

Experiment kendall_experiment();            // kendall.cpp           (J&W 4.1)
Experiment permutation_experiment();        // permutation.cpp       (J&W permutation)
Experiment adversarial_experiment();        // adversarial.cpp       (J&W adversarial attention)
Experiment erase_max_experiment();          // erase_max.cpp         (S&S single-weight erasure)
Experiment erase_until_flip_experiment();   // erase_until_flip.cpp  (S&S ranking erasure)
Experiment eraser_experiment();             // eraser.cpp            (ERASER faithfulness)
Experiment randomization_experiment();      // randomization.cpp     (Adebayo cascading randomisation)
Experiment seeds_experiment();              // seeds.cpp             (W&P 3.2 seed variance vs the adversary)
Experiment self_attention_correlation_experiment();  // self_attention_correlation.cpp (Abnar & Zuidema Table 1)
Experiment head_ablation_experiment();      // head_ablation.cpp     (Michel et al. single-head ablation)
Experiment plausibility_experiment();       // plausibility.cpp      (ERASER plausibility vs human rationales)
Experiment conicity_experiment();           // conicity.cpp          (Mohankumar et al. conicity of the states)
Experiment impermissible_experiment();      // impermissible.cpp     (Pruthi et al. attention on impermissible words)

}  // namespace attnlab
