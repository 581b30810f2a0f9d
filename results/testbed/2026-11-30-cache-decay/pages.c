#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  long pages=atol(argv[1]); char *A=aligned_alloc(4096,pages*4096); for(long i=0;i<pages*4096;i++)A[i]=1;
  double gaps[]={0,2,5,10,20,40,80,160}; int ng=8, reps=15;
  for(int g=0;g<ng;g++){
    double ts[64];
    for(int r=0;r<reps;r++){
      for(long p=0;p<pages;p++) A[p*4096+64]++;
      double t0=now(); while(now()-t0<gaps[g]*1e-3){}
      double t1=now();
      for(long p=0;p<pages;p++) A[p*4096+128]++;
      ts[r]=now()-t1;
    }
    qsort(ts,reps,sizeof(double),cmp);
    printf("pages %ld gap %5.1f ms: touch %.3f ms = %.2f us/page\n",pages,gaps[g],ts[reps/2]*1e3,ts[reps/2]*1e6/pages);
  }
}
